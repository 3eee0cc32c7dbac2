/**
 * Lint rule `modgate/socket-error-path`: a handler of an event that hands over a raw socket must
 * give that socket an error path in its own body.
 *
 * Why: node:http removes its own `'error'` listener from a socket it hands to `'connect'` or
 * `'upgrade'`, and a bare net/TLS socket never had one. A client that resets such a socket while
 * the daemon writes to it raises an `'error'` nobody listens to, and the process dies (issue #24:
 * a CONNECT reset at the moment its 404 arrived ended `serve`).
 *
 * What it catches: `x.on|once|addListener|prependListener|prependOnceListener(event, handler)` for
 * `connect`, `upgrade` (the socket is the handler's 2nd parameter), `connection`, `secureConnection`
 * (1st) and `clientError`, `tlsClientError` (2nd), where that parameter's type is a raw socket
 * (`Socket`, `TLSSocket`, `Duplex`: the type checker says so, so a WebSocket server's `connection`
 * or the link's `connect` is not one), whose body has no `.on('error', …)`/`.once('error', …)` and
 * calls none of the helpers that attach one (`catchSocketErrors`, `refuseRaw`, ws's
 * `handleUpgrade`). A raw-socket handler passed by name rather than written inline is reported
 * too: its body cannot be checked here, so inline it.
 *
 * What it does not catch: sockets and requests the code creates itself (`net.connect`,
 * `http.request`, `spawn`) without an error listener; streams; an error path attached only on some
 * branch, or later, after an await; a helper that attaches one under another name (disable the
 * rule on that line, saying which listener covers it, as for node:http's own `'connection'`
 * sockets). A handler that leaves the socket parameter out is not checked, except for `connect`
 * and `upgrade`, where node leaves that socket with no listener at all. The process-level test
 * test/e2e/socket-resets.test.ts and the fuzzer (docs/fuzzing.md) cover the behaviour itself.
 */

const EVENTS = new Map([
  ['connect', 1],
  ['upgrade', 1],
  ['clientError', 1],
  ['tlsClientError', 1],
  ['connection', 0],
  ['secureConnection', 0],
]);
const SUBSCRIBE = new Set(['on', 'once', 'addListener', 'prependListener', 'prependOnceListener']);
const HELPERS = new Set(['catchSocketErrors', 'refuseRaw', 'handleUpgrade']);
const RAW_SOCKETS = new Set(['Socket', 'TLSSocket', 'Duplex']);

/** @type {import('eslint').Rule.RuleModule} */
export const socketErrorPath = {
  meta: {
    type: 'problem',
    docs: { description: 'a handler handed a raw socket gives it an error path' },
    schema: [],
    messages: {
      missing:
        "this '{{event}}' handler gets a raw socket but gives it no error path: a reset would be an " +
        "unhandled 'error' and end the process. Call catchSocketErrors(socket) (or socket.on('error', …)) first.",
      byName:
        "write this '{{event}}' handler inline, so the lint can see that it gives the socket an error path",
    },
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    const checker = services?.program?.getTypeChecker();
    if (!checker) return {};
    const isRawSocket = (type) => RAW_SOCKETS.has(type?.getSymbol()?.getName() ?? '');
    /** The type of the handler's socket parameter, as the emitter's signature declares it. */
    const socketParameter = (handler, index) => {
      const tsNode = services.esTreeNodeToTSNodeMap.get(handler);
      // The listener type the emitter declares for this event; failing that, the handler's own.
      const type = checker.getContextualType(tsNode) ?? checker.getTypeAtLocation(tsNode);
      const [signature] = type.getCallSignatures();
      const parameter = signature?.getParameters()[index];
      return parameter ? checker.getTypeOfSymbolAtLocation(parameter, tsNode) : undefined;
    };
    return {
      CallExpression(node) {
        const event = subscribedEvent(node);
        if (event === null) return;
        const handler = node.arguments[1];
        if (!handler) return;
        const index = /** @type {number} */ (EVENTS.get(event));
        const inline = handler.type === 'ArrowFunctionExpression' || handler.type === 'FunctionExpression';
        if (!inline) {
          if (isRawSocket(socketParameter(handler, index))) {
            context.report({ node: handler, messageId: 'byName', data: { event } });
          }
          return;
        }
        if (!isRawSocket(socketParameter(handler, index))) return;
        // A handler that leaves the socket out (`(req) => …`) only passes when node keeps its own
        // listener: everywhere but connect and upgrade.
        const dropsSocket = handler.params.length <= index;
        if (dropsSocket && event !== 'connect' && event !== 'upgrade') return;
        if (!givesErrorPath(handler.body, context.sourceCode.visitorKeys)) {
          context.report({ node: handler, messageId: 'missing', data: { event } });
        }
      },
    };
  },
};

/** The event name when `node` subscribes to one of EVENTS, else null. */
function subscribedEvent(node) {
  const callee = node.callee;
  if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier') return null;
  if (!SUBSCRIBE.has(callee.property.name)) return null;
  const first = node.arguments[0];
  if (!first || first.type !== 'Literal' || typeof first.value !== 'string') return null;
  return EVENTS.has(first.value) ? first.value : null;
}

/** Whether the body holds `.on('error', …)`-like call or a call to one of HELPERS. */
function givesErrorPath(body, visitorKeys) {
  let found = false;
  const visit = (node) => {
    if (found || !node || typeof node.type !== 'string') return;
    if (node.type === 'CallExpression' && (listensForErrors(node) || callsHelper(node))) {
      found = true;
      return;
    }
    for (const key of visitorKeys[node.type] ?? []) {
      const child = node[key];
      if (Array.isArray(child)) child.forEach(visit);
      else visit(child);
    }
  };
  visit(body);
  return found;
}

function listensForErrors(call) {
  const callee = call.callee;
  if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier') return false;
  const first = call.arguments[0];
  return SUBSCRIBE.has(callee.property.name) && first?.type === 'Literal' && first.value === 'error';
}

function callsHelper(call) {
  const callee = call.callee;
  if (callee.type === 'Identifier') return HELPERS.has(callee.name);
  return (
    callee.type === 'MemberExpression' &&
    callee.property.type === 'Identifier' &&
    HELPERS.has(callee.property.name)
  );
}
