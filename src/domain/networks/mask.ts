// RPC URLs as the API shows them: scheme and host kept (the provider stays recognisable), path and query masked.
import type { RpcUrl } from '../types.ts';

function maskRpcUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '***';
  }
  const hidden = (u.pathname !== '/' && u.pathname !== '') || u.search !== '' || u.username !== '' || u.password !== '';
  return `${u.protocol}//${u.host}${hidden ? '/***' : ''}`;
}

export const maskRpcUrls = (urls: readonly RpcUrl[]): RpcUrl[] =>
  urls.map((u) => ({ url: maskRpcUrl(u.url), weight: u.weight }));
