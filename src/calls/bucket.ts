// Whose rate-limit tokens a request draws, REST or MCP alike: a key's wallet (every key of it), or,
// without a usable key, the client's address. The limiter knows buckets by a name (bucketKey).

export type Bucket = { readonly wallet: string; readonly address?: never } | { readonly address: string; readonly wallet?: never };

/** The bucket's name in a limiter's table (and in PostgreSQL's rate_buckets, which every replica shares). */
export const bucketKey = (bucket: Bucket): string => (bucket.wallet !== undefined ? `wallet:${bucket.wallet}` : `addr:${bucket.address}`);
