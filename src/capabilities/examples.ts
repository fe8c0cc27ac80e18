// Real mainnet values used in hints and API docs, so an example URL actually works when tried.
export const EXAMPLE_WALLET = '8wytzyCBXco7yqgrLDiecpEt452MSuNWRe7xsLgAAX1H';
export const EXAMPLE_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const EXAMPLE_SIGNATURE = '2NPwsoX7NyfarDBhGDrewJKdNccVS1X9dX2uWCtTMRamXhzXk8PHnGL25yneF5rmR7LPSXH8gKciSgPAe9nP7VU4';
