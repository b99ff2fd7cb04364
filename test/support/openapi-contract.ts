import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import type { ApiAnswer } from './run-service.js';

/** The parts of an OpenAPI document a contract check reads. */
export interface OpenApiDoc {
  readonly paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
}

/**
 * Checks answers of a real service against its OpenAPI document: `check(method, path, answer)` fails
 * the test when the document lists no such status for the route, or no body of the answer's content
 * type, or (JSON) the body does not validate against the document's schema (ajv, draft 2020-12); it
 * records `method path status` in `seen`. `missing(notDriven)` lists the documented statuses never
 * seen, but those in `notDriven` (`* 500` stands for every route's 500).
 */
export function openApiContract(doc: () => OpenApiDoc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const seen = new Set<string>();
  const check = (method: string, path: string, a: ApiAnswer, contentType = 'application/json') => {
    const listed = doc().paths[path]?.[method.toLowerCase()]?.responses[String(a.status)];
    expect(listed, `${method} ${path} answered ${a.status}, which the document does not list`).toBeDefined();
    seen.add(`${method.toLowerCase()} ${path} ${a.status}`);
    const media = listed!.content?.[contentType];
    expect(media, `${method} ${path} ${a.status}: no ${contentType} in the document`).toBeDefined();
    expect(a.headers.get('content-type') ?? '').toContain(contentType);
    if (contentType !== 'application/json') return a;
    const validate = ajv.compile(media!.schema);
    expect(validate(a.body), `${method} ${path} ${a.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    return a;
  };
  const missing = (notDriven: ReadonlySet<string>) =>
    Object.entries(doc().paths)
      .flatMap(([path, ops]) =>
        Object.entries(ops).flatMap(([method, op]) =>
          Object.keys(op.responses).map((s) => `${method} ${path} ${s}`),
        ),
      )
      .filter((k) => !seen.has(k) && !notDriven.has(k) && !notDriven.has(`* ${k.split(' ').at(-1)}`));
  return { check, missing };
}

/** A GET of an event stream: its status and headers, the JSON body of a refusal (a 200's stream is dropped). */
export async function sseAnswer(
  url: string,
  token: string,
  extra: Record<string, string> = {},
): Promise<ApiAnswer> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, ...extra } });
  const text = res.ok ? '' : await res.text();
  if (res.ok) await res.body?.cancel();
  return {
    status: res.status,
    headers: res.headers,
    body: (text ? JSON.parse(text) : {}) as ApiAnswer['body'],
  };
}
