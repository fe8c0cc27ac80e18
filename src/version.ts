import pkg from '../package.json';

/** The gateway's version, from package.json (bundled into the binary). */
export const VERSION: string = pkg.version;
