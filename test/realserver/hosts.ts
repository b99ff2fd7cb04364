import { execFileSync } from 'node:child_process';
import { createServer, connect, type Server } from 'node:net';

/**
 * Separate "hosts" for worker processes: each a Linux network namespace (`ip netns`) with its own
 * UTS namespace (its own hostname, so a worker's default identity `host:pid` names it), joined to
 * this machine by a veth pair. The server and PostgreSQL stay on loopback; a TCP forwarder on this
 * side of each veth pair plays the network between the hosts (a worker in the namespace reaches
 * `10.x.y.1:<port>`). Needs root and `ip`; where either is missing, {@link createHosts} returns
 * undefined and the caller runs plain processes (and says so).
 */
export interface TestHost {
  readonly name: string;
  /** The command prefix that runs a program on this host (it execs the program: the pid is kept). */
  readonly wrap: readonly string[];
  /** `127.0.0.1:<port>` as this host reaches it (a forwarder on the host's gateway address). */
  reach(loopbackAddress: string): Promise<string>;
}

export interface TestHosts {
  readonly hosts: readonly TestHost[];
  /** Close the forwarders, delete the namespaces and links. Idempotent, never throws. */
  remove(): Promise<void>;
}

function ip(args: readonly string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function forward(listenHost: string, target: { host: string; port: number }): Promise<Server> {
  const server = createServer((socket) => {
    const upstream = connect(target.port, target.host);
    socket.pipe(upstream).pipe(socket);
    const close = (): void => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', close);
    upstream.on('error', close);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, listenHost, () => resolve(server));
  });
}

/**
 * Make `names.length` hosts, or undefined when network namespaces cannot be made here (not root, no
 * `ip`, no permission); a half-made set is removed first.
 */
export async function createHosts(names: readonly string[]): Promise<TestHosts | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const tag = Math.random().toString(36).slice(2, 6);
  const octet = 100 + Math.floor(Math.random() * 100);
  const made: { ns: string; link: string }[] = [];
  const servers: Server[] = [];
  let removed = false;
  const remove = async (): Promise<void> => {
    if (removed) return;
    removed = true;
    await Promise.all(servers.map((s) => new Promise((r) => s.close(() => r(undefined)))));
    for (const m of made) {
      try {
        ip(['link', 'del', m.link]);
      } catch {
        /* gone with its namespace */
      }
      try {
        ip(['netns', 'del', m.ns]);
      } catch {
        /* already gone */
      }
    }
  };
  try {
    const hosts = names.map((name, i): TestHost => {
      const ns = `hx-${tag}-${i}`;
      const link = `hx${tag}h${i}`;
      const peer = `hx${tag}n${i}`;
      const gateway = `10.${octet}.${i}.1`;
      ip(['netns', 'add', ns]);
      made.push({ ns, link });
      ip(['link', 'add', link, 'type', 'veth', 'peer', 'name', peer]);
      ip(['link', 'set', peer, 'netns', ns]);
      ip(['addr', 'add', `${gateway}/24`, 'dev', link]);
      ip(['link', 'set', link, 'up']);
      ip(['-n', ns, 'addr', 'add', `10.${octet}.${i}.2/24`, 'dev', peer]);
      ip(['-n', ns, 'link', 'set', peer, 'up']);
      ip(['-n', ns, 'link', 'set', 'lo', 'up']);
      return {
        name,
        wrap: [
          'ip',
          'netns',
          'exec',
          ns,
          'unshare',
          '--uts',
          'sh',
          '-c',
          `hostname ${name} && exec "$@"`,
          'sh',
        ],
        reach: async (loopbackAddress) => {
          const [host, port] = loopbackAddress.split(':');
          const server = await forward(gateway, { host: host!, port: Number(port) });
          servers.push(server);
          const address = server.address();
          return `${gateway}:${typeof address === 'object' && address ? address.port : 0}`;
        },
      };
    });
    return { hosts, remove };
  } catch {
    await remove();
    return undefined;
  }
}
