import { describe, expect, it } from 'vitest';
import { realServer, tier } from './tier.js';

/**
 * The server's Prometheus endpoint (`global.metrics.prometheus.listenAddress` of
 * deploy/temporal/temporal-server.yaml) serves the metrics docs/deploy.md says to watch.
 */
describe.skipIf(!realServer())('real server: metrics to monitor', () => {
  it('serves persistence latency and errors and frontend request counts', async () => {
    const response = await fetch(tier().metricsUrl);
    expect(response.status).toBe(200);
    const text = await response.text();
    for (const name of ['persistence_latency_bucket', 'persistence_requests', 'service_requests'])
      expect(text, name).toMatch(new RegExp(`^${name}\\{`, 'm'));
  });
});
