// GET /api/v1/ready: asks each component whether it can serve; 503 naming the ones that cannot.
import type { RequestHandler } from 'express';
import { AppError } from '../errors.ts';
import { success } from './envelope.ts';

export interface ReadinessComponent {
  name: string;
  /** True when the component can serve requests. A throw or a rejection counts as down. */
  check(): boolean | Promise<boolean>;
}

// A probe that hangs must not hang the readiness answer (orchestrators time out and retry anyway).
const CHECK_TIMEOUT_MS = 2_000;

async function isUp(component: ReadinessComponent): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([Promise.resolve().then(() => component.check()), timeout])) === true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export function readinessHandler(components: readonly ReadinessComponent[]): RequestHandler {
  return async (_req, res) => {
    const states = await Promise.all(components.map(async (c) => [c.name, (await isUp(c)) ? 'up' : 'down'] as const));
    const down = states.filter(([, state]) => state === 'down').map(([name]) => name);
    if (down.length > 0) {
      throw new AppError('NOT_READY', {
        reason: `not ready: ${down.join(', ')} ${down.length === 1 ? 'is' : 'are'} down`,
        headers: { 'Retry-After': '5' },
      });
    }
    res.json(success({ status: 'ready', components: Object.fromEntries(states) }));
  };
}
