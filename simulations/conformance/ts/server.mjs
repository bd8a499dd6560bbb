// The MCP TypeScript SDK as a real server for the conformance harness: the same tool and probe
// endpoints as simulations/conformance/server.py (the Python SDK server), so every case can run
// against either.
//
//   node server.mjs (--fd 5 | --port 8000) [--incarnation 1] [--capacity 64] [--retry-ms 200]
//
// Sessions are kept as the SDK's own example does (examples/server/simpleStreamableHttp.js):
// one StreamableHTTPServerTransport per session, created by an initialize request, each with
// its own event store; a request naming an unknown session gets 404. The event store is the
// package's example InMemoryEventStore, bounded like the Python harness's store: each stream
// keeps its newest `capacity` events.
//
// Tool `stream(tag, count, close_after, hold?)`: `count` log notifications "tag:1".."tag:n" on
// the request's stream, the SSE stream closed after `close_after` of them (the client then
// resumes with Last-Event-ID), then the result "tag:done". Probes outside MCP:
// GET /_harness/stored/<tag> -> {"stored": bool}, GET /_harness/release/<name> -> releases a
// call waiting on hold=<name>.
//
// Tool `stepped(tag, count)` (the differential tester's): each message ("tag:1".."tag:n", then
// the result "tag:done") only when GET /_harness/step/<tag> grants it; the probe answers
// {"stored": n} once the store holds it (504 after STORE_WAIT_MS).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

const STORED_PREFIX = '/_harness/stored/';
const RELEASE_PREFIX = '/_harness/release/';
const STEP_PREFIX = '/_harness/step/';
const HOLD_LIMIT_MS = 20000;
const STEP_LIMIT_MS = 60000;
const STORE_WAIT_MS = 5000;
const LABEL = /"(?:data|text)":"([^":]+):(\d+|done)"/;

const { values: options } = parseArgs({
  options: {
    fd: { type: 'string' },
    port: { type: 'string' },
    incarnation: { type: 'string', default: '1' },
    capacity: { type: 'string', default: '64' },
    'retry-ms': { type: 'string', default: '200' },
  },
});
const capacity = Number(options.capacity);
const retryInterval = Number(options['retry-ms']);
if (!(capacity >= 1) || !(retryInterval >= 0) || (options.fd === undefined) === (options.port === undefined)) {
  console.error('usage: node server.mjs (--fd N | --port N) [--capacity N>=1] [--retry-ms N>=0]');
  process.exit(2);
}

/** The example store, keeping each stream's newest `capacity` events (the harness's bound). */
class BoundedEventStore extends InMemoryEventStore {
  constructor(limit, stored) {
    super();
    this.limit = limit;
    this.stored = stored;    // tags whose result ("tag:done") has been stored
  }

  /** How many of tag's tool messages every store of the process has stored. */
  static count(tag) { return messages.get(tag) ?? 0; }

  async storeEvent(streamId, message) {
    const eventId = await super.storeEvent(streamId, message);
    const text = JSON.stringify(message ?? '');
    for (const match of text.matchAll(/"([^"]*):done"/g)) {
      if (text.includes('"result"')) this.stored.add(match[1]);
    }
    const label = LABEL.exec(text);
    if (label) messages.set(label[1], BoundedEventStore.count(label[1]) + 1);
    const mine = [...this.events.entries()].filter(([, e]) => e.streamId === streamId);
    for (const [id] of mine.slice(0, Math.max(0, mine.length - this.limit))) {
      this.events.delete(id);
    }
    return eventId;
  }
}

const stored = new Set();
const messages = new Map();   // tag -> tool messages stored
const granted = new Map();    // tag -> messages the harness has let `stepped` send
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

async function until(condition, limitMs) {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(2);
  }
  return true;
}

/** Grant tag's next message; the number stored once the store holds it, or null. */
async function step(tag) {
  granted.set(tag, (granted.get(tag) ?? 0) + 1);
  const ok = await until(() => BoundedEventStore.count(tag) >= granted.get(tag), STORE_WAIT_MS);
  return ok ? BoundedEventStore.count(tag) : null;
}
const releases = new Map();
function release(name) {
  if (!releases.has(name)) {
    let open;
    const done = new Promise(resolve => { open = resolve; });
    releases.set(name, { done, open });
  }
  return releases.get(name);
}

function mcpServer() {
  const server = new McpServer({ name: 'conformance', version: '1.0.0' },
                               { capabilities: { logging: {} } });
  server.registerTool('stream', {
    description: 'Send count notifications, closing the SSE stream after close_after of them',
    inputSchema: { tag: z.string(), count: z.number().int(), close_after: z.number().int(),
                   hold: z.string().default('') },
  }, async ({ tag, count, close_after: closeAfter, hold }, extra) => {
    for (let i = 1; i <= count; i++) {
      await extra.sendNotification({ method: 'notifications/message',
                                     params: { level: 'info', data: `${tag}:${i}` } });
      if (i === closeAfter) {
        extra.closeSSEStream?.();
        if (hold) {
          await Promise.race([release(hold).done,
                              new Promise(resolve => setTimeout(resolve, HOLD_LIMIT_MS))]);
        }
      }
    }
    return { content: [{ type: 'text', text: `${tag}:done` }] };
  });
  server.registerTool('stepped', {
    description: 'Send tag:1..tag:count then tag:done, one message per harness step',
    inputSchema: { tag: z.string(), count: z.number().int() },
  }, async ({ tag, count }, extra) => {
    const grantedAtLeast = n => until(() => (granted.get(tag) ?? 0) >= n, STEP_LIMIT_MS);
    for (let i = 1; i <= count; i++) {
      if (!await grantedAtLeast(i)) return { content: [{ type: 'text', text: `${tag}:abandoned` }] };
      await extra.sendNotification({ method: 'notifications/message',
                                     params: { level: 'info', data: `${tag}:${i}` } });
    }
    if (!await grantedAtLeast(count + 1)) return { content: [{ type: 'text', text: `${tag}:abandoned` }] };
    return { content: [{ type: 'text', text: `${tag}:done` }] };
  });
  return server;
}

const sessions = new Map();   // session id -> transport

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function handle(req, res) {
  const path = new URL(req.url, 'http://localhost').pathname;
  if (path.startsWith(STORED_PREFIX)) {
    return reply(res, 200, { stored: stored.has(decodeURIComponent(path.slice(STORED_PREFIX.length))) });
  }
  if (path.startsWith(STEP_PREFIX)) {
    const count = await step(decodeURIComponent(path.slice(STEP_PREFIX.length)));
    return reply(res, count === null ? 504 : 200, { stored: count });
  }
  if (path.startsWith(RELEASE_PREFIX)) {
    release(decodeURIComponent(path.slice(RELEASE_PREFIX.length))).open();
    return reply(res, 200, { released: true });
  }
  const body = req.method === 'POST' ? await readBody(req) : undefined;
  const sessionId = req.headers['mcp-session-id'];
  const known = sessionId ? sessions.get(sessionId) : undefined;
  if (known) return known.handleRequest(req, res, body);
  if (!sessionId && req.method === 'POST' && isInitializeRequest(body)) {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new BoundedEventStore(capacity, stored),
      retryInterval,
      onsessioninitialized: id => { sessions.set(id, transport); },
    });
    transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
    await mcpServer().connect(transport);
    return transport.handleRequest(req, res, body);
  }
  if (sessionId) {
    return reply(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
  }
  return reply(res, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null });
}

const http = createServer((req, res) => {
  handle(req, res).catch(error => {
    console.error(error);
    if (!res.headersSent) reply(res, 500, { jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
  });
});
http.listen(options.fd !== undefined ? { fd: Number(options.fd) } : { port: Number(options.port), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => { http.close(); process.exit(0); });
}
