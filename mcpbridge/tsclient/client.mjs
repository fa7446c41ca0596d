// client.mjs calls the tools of an MCP server with the official TypeScript
// SDK as the client, answering each question the server asks as a scenario
// says, and prints one JSON line per call. The Go tests of
// examples/server run it:
//
//   node client.mjs SERVER_BINARY '[{"tool":"deploy","arguments":{"env":"prod"},"action":"accept"}]'
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [server, scenariosJSON] = process.argv.slice(2);
const scenarios = JSON.parse(scenariosJSON);

const client = new Client(
  { name: 'toolnexus-tsclient', version: '0.1.0' },
  { capabilities: { elicitation: { form: {}, url: {} } } },
);

let current;
let asked = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  const { mode, message, url } = request.params;
  asked.push({ mode, message, url });
  const result = { action: current.action };
  if (current.content) {
    result.content = current.content;
  }
  return result;
});

await client.connect(new StdioClientTransport({ command: server, args: [], stderr: 'inherit' }));
for (const scenario of scenarios) {
  current = scenario;
  asked = [];
  const line = { tool: scenario.tool, action: scenario.action };
  try {
    const result = await client.callTool({ name: scenario.tool, arguments: scenario.arguments ?? {} });
    Object.assign(line, { isError: result.isError ?? false, content: result.content, asked });
  } catch (err) {
    line.error = String(err);
  }
  console.log(JSON.stringify(line));
}
await client.close();
