// client.mjs calls the tools of an MCP server with the official TypeScript
// SDK as the client, answering each request the server sends as a scenario
// says, and prints one JSON line per call. The Go tests of
// examples/mcpserver, examples/mcpgoserver and conformance run it, against a command over stdio or a URL over
// streamable HTTP:
//
//   node client.mjs SERVER_BINARY '[{"tool":"deploy","arguments":{"env":"prod"},"action":"accept"}]' ['{"ENV_VAR":"value"}']
//   node client.mjs http://127.0.0.1:8080/ '[...]'
//
// A scenario names the tool and its arguments; action and content answer
// each elicitation, unless answers lists one {action, content} per
// elicitation, in order; sampled is the text the client's model answers a
// sampling request with; roots are the client's roots. requestState and
// inputResponses, when set, are sent with the call as a retry sends them.
// A line holds the result's isError and content, what was asked, and the
// JSON-RPC error {code, message, data} of a call that failed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [server, scenariosJSON, envJSON] = process.argv.slice(2);
const scenarios = JSON.parse(scenariosJSON);

const client = new Client(
  { name: 'toolnexus-tsclient', version: '0.1.0' },
  { capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} } },
);

let current;
let asked = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  const { mode, message, url } = request.params;
  const answer = current.answers ? current.answers[asked.length] ?? { action: 'cancel' } : current;
  asked.push({ mode, message, url });
  const result = { action: answer.action };
  if (answer.content) {
    result.content = answer.content;
  }
  return result;
});
client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
  asked.push({ mode: 'sampling', message: request.params.messages.map((m) => m.content.text).join(' ') });
  return { role: 'assistant', model: 'tsclient', content: { type: 'text', text: current.sampled ?? 'Paris' } };
});
client.setRequestHandler(ListRootsRequestSchema, async () => {
  asked.push({ mode: 'roots' });
  return { roots: current.roots ?? [] };
});

const transport = /^https?:\/\//.test(server)
  ? new StreamableHTTPClientTransport(new URL(server))
  : new StdioClientTransport({
    command: server,
    args: [],
    stderr: 'inherit',
    env: { ...getDefaultEnvironment(), ...JSON.parse(envJSON ?? '{}') },
  });
await client.connect(transport);
for (const scenario of scenarios) {
  current = scenario;
  asked = [];
  const line = { tool: scenario.tool, action: scenario.action };
  const params = { name: scenario.tool, arguments: scenario.arguments ?? {} };
  if (scenario.requestState !== undefined) {
    params.requestState = scenario.requestState;
  }
  if (scenario.inputResponses !== undefined) {
    params.inputResponses = scenario.inputResponses;
  }
  try {
    const result = await client.callTool(params);
    Object.assign(line, { isError: result.isError ?? false, content: result.content, asked });
  } catch (err) {
    Object.assign(line, { asked, error: { code: err.code, message: String(err.message), data: err.data } });
  }
  console.log(JSON.stringify(line));
}
await client.close();
