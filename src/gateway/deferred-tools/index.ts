/**
 * A client's deferred tools for an upstream without tool search (docs/gateway.md, Deferred tools): the plan
 * (plan.ts), the search loop the gateway runs for the upstream (loop.ts) and the reader adapter it runs on, and the
 * attempt of the planned request, its search rounds read as one answer (translation.ts). The pipeline calls it in one
 * place: gateway/translation.ts `attemptTranslation`.
 */
import type { WireFormat } from "../../models/types.js"
import { formatModule } from "../../providers/formats.js"
import type { DecodedRequest } from "../../providers/types.js"
import {
  DEFAULT_DEFERRED_TOOLS_MODE,
  type DeferredToolsMode,
  type DeferredToolsPlan,
  planDeferredTools,
} from "./plan.js"

export { openDeferred } from "./translation.js"

/**
 * The plan for a request's deferred tools, when its upstream's format cannot carry them as the client sent them: a
 * format without server-side tool search, or one with it but a client that asked for no search of any kind (a body
 * that defers needs one). Undefined otherwise, and for a request without deferred tools: it goes as it came.
 */
export function resolveDeferredTools(
  request: DecodedRequest,
  upstream: WireFormat,
  mode: DeferredToolsMode = DEFAULT_DEFERRED_TOOLS_MODE,
): DeferredToolsPlan | undefined {
  if (formatModule(upstream).descriptor.serverToolSearch && request.options.nativeToolSearch) return undefined
  return planDeferredTools(request, mode)
}
