declare module '*.sql' {
  const text: string;
  export default text;
}

/** The Scalar API reference's prebuilt browser bundle, embedded as a file (its path) to serve from the binary. */
declare module '*/api-reference/dist/browser/standalone.js' {
  const path: string;
  export default path;
}

/** A page script bundled by `bun run build:pages`, imported as text to serve from the binary. */
declare module '*.bundle.js' {
  const source: string;
  export default source;
}
