/**
 * Ed25519 (`@noble/curves`) for verifying signed decisions in the workflow sandbox. Its own module so
 * the worker can preload it (src/worker/bundle.ts `preloadedModules`): evaluated once per worker and
 * shared by every run of its V8 context instead of once per run (its curve and SHA-512 tables cost
 * about 2 ms to build). The SDK deep-freezes a preloaded module's exports; noble keeps its window
 * precomputations in closures and WeakMaps, so verifying still works on the frozen objects
 * (test/workflows runs with signed decisions verify through it).
 */
export { ed25519 } from '@noble/curves/ed25519.js';
