declare module '*.sql' {
  const text: string;
  export default text;
}

/** The Scalar API reference's prebuilt browser bundle, imported as text to serve from the binary. */
declare module '*/api-reference/dist/browser/standalone.js' {
  const source: string;
  export default source;
}
