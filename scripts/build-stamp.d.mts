/** Types of build-stamp.mjs, for the tests that import it. */
export declare const inputDigest: (packageDir: string) => string
export declare const isFresh: (packageDir: string) => boolean
export declare const writeStamp: (packageDir: string, digest: string) => void
