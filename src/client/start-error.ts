import { HARNESS_SEARCH_ATTRIBUTES, missingSearchAttributesError } from '../devserver/search-attributes.js';

/** The messages of `err` and its causes, outermost first (at most 8 levels). */
function messagesOf(err: unknown): string[] {
  const out: string[] = [];
  let e: unknown = err;
  for (let depth = 0; depth < 8 && e instanceof Error; depth += 1) {
    out.push(e.message);
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

/**
 * What a failed `client.workflow.start` of a run means, said in one message: a namespace without the
 * harness's search attributes becomes `temporal.search_attributes_missing`, naming the missing ones and
 * the exact `temporal operator search-attribute create` commands, one per attribute; any other failure keeps its type and
 * is returned itself with its causes' messages appended to its message (the SDK says only "Failed to
 * start Workflow" and keeps the reason on `cause`), so its class still tells what it is.
 */
export function startFailure(err: unknown, namespace: string): Error {
  const messages = messagesOf(err);
  const text = messages.join(': ');
  const missing = [...text.matchAll(/no mapping defined for search attribute (\w+)/g)].map((m) => m[1]!);
  if (missing.length > 0) {
    const named = HARNESS_SEARCH_ATTRIBUTES.filter((a) => missing.includes(a.name));
    return missingSearchAttributesError(
      namespace,
      named.length > 0 ? named : missing.map((name) => ({ name, type: 'Keyword' as const })),
      `the run was not started (a server names only the first attribute it lacks: create each of the five that \`temporal operator search-attribute list --namespace ${namespace}\` does not show)`,
      err,
      HARNESS_SEARCH_ATTRIBUTES,
    );
  }
  if (!(err instanceof Error)) return new Error(String(err));
  // The same error (callers test its class, e.g. WorkflowExecutionAlreadyStartedError), its message
  // completed with its causes'.
  if (messages.length > 1) err.message = text;
  return err;
}
