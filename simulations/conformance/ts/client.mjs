// The MCP TypeScript SDK's own client, driven for the conformance harness: the Node twin of
// simulations/conformance/sdk_driver.py.
//
//   node client.mjs --url URL --tag A --count N --close-after K [--hold] [--vet]
//                   [--max-resumes 6] [--budget-ms 20000]
//
// It connects (StreamableHTTPClientTransport, the SDK's default reconnection options), calls the
// harness tool `stream`, and records every HTTP exchange through a wrapping fetch (method,
// JSON-RPC method, Last-Event-ID, status, upstream, body of a refusal). With --vet it prints
// {"vet": exchanges} after initialize and waits for a line on stdin: "go" or "veto". With
// --hold it prints {"hold": true} before its first resumption (a GET with Last-Event-ID) and
// waits for a line on stdin, so the harness can stop or restart a server at that point. The last
// line on stdout is the run: {"outcome", "detail", "labels", "exchanges"}; outcome is
// "completed", "gave_up" (the call failed: an error or its request timeout), "stalled" (still
// resuming after --max-resumes resumptions) or "rejected_session" (vetoed, or with --vet a
// session whose initialization failed).
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const { values: opt } = parseArgs({
  options: {
    url: { type: 'string' },
    tag: { type: 'string' },
    count: { type: 'string' },
    'close-after': { type: 'string' },
    hold: { type: 'boolean', default: false },
    vet: { type: 'boolean', default: false },
    'max-resumes': { type: 'string', default: '6' },
    'budget-ms': { type: 'string', default: '20000' },
  },
});
if (!opt.url || !opt.tag || !(Number(opt.count) >= 1) || !(Number(opt['close-after']) >= 0)) {
  console.error('usage: node client.mjs --url URL --tag T --count N>=1 --close-after K>=0');
  process.exit(2);
}

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
async function ask(message) {
  console.log(JSON.stringify(message));
  const { value } = await lines.next();
  return (value ?? '').trim();
}

const exchanges = [];
const labels = [];
let holding = opt.hold;
let finish;
const finished = new Promise(resolve => { finish = resolve; });

async function recordingFetch(url, init = {}) {
  const headers = new Headers(init.headers ?? {});
  const cursor = headers.get('last-event-id') ?? '';
  const method = init.method ?? 'GET';
  let rpc = '';
  if (method === 'POST' && typeof init.body === 'string') {
    try { rpc = JSON.parse(init.body).method ?? ''; } catch { rpc = '?'; }
  }
  if (cursor && holding) {
    holding = false;
    await ask({ hold: true });
  }
  const response = await fetch(url, init);
  let body = null;
  if (response.status >= 400) {
    const text = await response.clone().text();
    try { body = JSON.parse(text); } catch { body = { raw: text }; }
  }
  const upstream = (response.headers.get('x-upstream') ?? '').split(',').pop().trim();
  const exchange = { method, rpc, last_event_id: cursor, status: response.status, upstream, body, ended: false, gap: false };
  exchanges.push(exchange);
  if (exchanges.filter(x => x.last_event_id).length >= Number(opt['max-resumes'])) {
    setTimeout(() => finish({ outcome: 'stalled', detail: `still resuming after ${exchanges.length} requests; stopped by the harness` }), 500);
  }
  return response.ok && response.body ? watched(response, exchange) : response;
}

// The response with its body passed through unchanged, noting on the exchange whether it carried
// the guard's gap notice and whether the server ended it (an aborted read is not an end).
function watched(response, exchange) {
  const decoder = new TextDecoder();
  let tail = '';
  const watch = new TransformStream({
    transform(chunk, controller) {
      const seen = tail + decoder.decode(chunk, { stream: true });
      if (seen.includes('notifications/resumption_gap')) exchange.gap = true;
      tail = seen.slice(-64);   // a notice split across chunks is still found
      controller.enqueue(chunk);
    },
    flush() { exchange.ended = true; },
  });
  return new Response(response.body.pipeThrough(watch),
    { status: response.status, statusText: response.statusText, headers: response.headers });
}

const transport = new StreamableHTTPClientTransport(new URL('/mcp', opt.url), { fetch: recordingFetch });
const client = new Client({ name: 'conformance-harness', version: '1' }, { capabilities: {} });
client.setNotificationHandler(LoggingMessageNotificationSchema, notification => {
  const data = notification.params.data;
  if (typeof data === 'string' && data.startsWith(`${opt.tag}:`)) labels.push(data);
});

async function call() {
  try {
    await client.connect(transport);
  } catch (error) {
    // Under --vet a session that fails to initialize did not stick (behind a hashing load
    // balancer its second request can land elsewhere): the harness draws another one.
    const detail = `${error?.name ?? 'Error'}: ${error?.message ?? error}`;
    return { outcome: opt.vet ? 'rejected_session' : 'gave_up', detail };
  }
  if (opt.vet && (await ask({ vet: exchanges })) !== 'go') {
    return { outcome: 'rejected_session', detail: '' };
  }
  try {
    const result = await client.callTool(
      { name: 'stream', arguments: { tag: opt.tag, count: Number(opt.count), close_after: Number(opt['close-after']) } },
      undefined, { timeout: Number(opt['budget-ms']) });
    const text = (result.content ?? []).map(c => c.text ?? '').join(' ');
    if (!result.isError) labels.push(text);
    return { outcome: result.isError ? 'gave_up' : 'completed', detail: text };
  } catch (error) {
    return { outcome: 'gave_up', detail: `${error?.name ?? 'Error'}: ${error?.message ?? error}` };
  }
}

call().then(finish, error => finish({ outcome: 'gave_up', detail: String(error) }));
const run = await finished;
console.log(JSON.stringify({ ...run, labels, exchanges }));
process.exit(0);
