// The plugin host's diagnostics channels (node:diagnostics_channel), for whoever subscribes (bench/hop-probe.ts). With
// no subscriber nothing is built: each publisher checks `hasSubscribers` first.
import { channel, tracingChannel } from 'node:diagnostics_channel';

/** A plugin call sent to the runtime process, from the send to its checked answer (tracePromise). */
export interface RuntimeCallTrace {
  plugin: string;
  requestId: string;
}
export const pluginCallChannel = tracingChannel<unknown, RuntimeCallTrace>('relaybox:plugin-host:call');

/**
 * Published right before a runtime process is forked, with the Node options it is started with: a diagnostic
 * subscriber in this process may add its own (a preload that subscribes to the runtime's channels, as the bench does).
 */
export interface RuntimeForkMessage {
  execArgv: string[];
}
export const runtimeForkChannel = channel('relaybox:plugin-host:runtime-fork');
