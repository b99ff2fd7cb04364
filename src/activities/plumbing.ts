/** Activity of the plumbing workflow: proves a worker process executes activities. */
export async function greet(name: string): Promise<string> {
  return `hello, ${name}`;
}
