// Example: answers what it was called with. Try:
//   curl -s -X POST localhost:8080/api/v1/plugins/echo/call -H "Authorization: Bearer $API_KEY" \
//        -H 'Content-Type: application/json' -d '{"params":{"hello":"world"}}'
import type { PluginContext } from '@openzeppelin/relayer-sdk';

export async function handler(context: PluginContext) {
  return { params: context.params, route: context.route, method: context.method, query: context.query };
}
