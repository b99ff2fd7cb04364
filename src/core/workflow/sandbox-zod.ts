import { config } from 'zod';

/**
 * Zod inside the workflow sandbox runs jitless. Every workflow run evaluates the bundle's modules
 * again (its own module cache), so every schema is a new instance and zod's JIT would generate and
 * compile a fast path for each object schema on its first parse in every run: more CPU than the
 * parse it speeds up. Jitless parsing gives the same results. Imported first by the bundle's entry,
 * so it applies before any module-level parse; the worker's own (non-sandbox) zod is untouched.
 */
config({ jitless: true });
