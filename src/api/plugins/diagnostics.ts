// The plugin route's diagnostics channel (node:diagnostics_channel), for whoever subscribes (bench/hop-probe.ts).
// With no subscriber nothing is built: the route checks `hasSubscribers` first.
import { tracingChannel } from 'node:diagnostics_channel';
import type { Request, Response } from 'express';

/** A plugin call's route, from its handler's start to the answer it is about to write (tracePromise). */
export interface PluginRouteTrace {
  req: Request;
  res: Response;
}
export const pluginRouteChannel = tracingChannel<unknown, PluginRouteTrace>('relaybox:plugins:route');
