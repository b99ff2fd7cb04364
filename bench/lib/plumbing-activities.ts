/** Activity of the plumbing workflow: proves a worker process executes activities. */
export function greet(name: string): Promise<string> {
  return Promise.resolve(`hello, ${name}`);
}
