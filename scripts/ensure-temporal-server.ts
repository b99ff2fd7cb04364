/**
 * Make sure the Temporal server of the real-server test tier (test/realserver, docs/deploy.md) is
 * built: `go install` of go.temporal.io/server v1.29.1 (`cmd/server`, `cmd/tools/sql`) into the user's
 * cache, once per version. Prints where it came from and how long it took; without Go and without a
 * cached build it says the tier will be skipped and exits 0 (the tier is optional on such machines).
 * @throws (exit 1) when Go is present but the build fails, with go's output.
 */
import { locateServer, serverCacheDir, TEMPORAL_SERVER_VERSION } from '../src/devserver/server-build.js';

const started = Date.now();
const build = await locateServer(TEMPORAL_SERVER_VERSION, (line) => console.log(line));
if (!build) {
  console.log(
    `No Go toolchain and no cached Temporal server v${TEMPORAL_SERVER_VERSION} in ${serverCacheDir()}: the real-server test tier will be skipped.`,
  );
} else {
  console.log(
    `Temporal server v${build.version} (${build.source}): ${build.server} [${((Date.now() - started) / 1000).toFixed(1)} s]`,
  );
}
