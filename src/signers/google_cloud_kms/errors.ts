// Why a call to Google Cloud KMS failed, in words an operator acts on: from the gRPC status code the client's errors
// carry. Never Google's message (an endpoint may repeat the request in it: the bearer JWT), nor the service account.

/** gRPC status codes (google.rpc.Code) the client's GoogleError carries. */
const CAUSES: Record<number, string> = {
  4: 'Google Cloud KMS did not answer in time (DEADLINE_EXCEEDED)',
  5: 'the key version was not found (check project_id, location, key_ring_id, key_id and key_version)',
  7: 'the service account may not use this key (PERMISSION_DENIED)',
  8: 'throttled by Google Cloud KMS (RESOURCE_EXHAUSTED)',
  9: 'the key version cannot sign now (FAILED_PRECONDITION: disabled or destroyed)',
  14: 'Google Cloud KMS unreachable (UNAVAILABLE)',
  16: 'the service account credentials were refused (UNAUTHENTICATED)',
};
const NETWORK_CODES = /\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT)\b/;

/** google.rpc.Code names, for a code without a sentence of its own. */
const NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

export function googleKmsCause(err: unknown): string {
  const e = (err ?? {}) as { code?: unknown; message?: string; cause?: { code?: string } };
  const network = NETWORK_CODES.exec(
    `${e.cause?.code ?? ''} ${typeof e.code === 'string' ? e.code : ''} ${e.message ?? ''}`,
  );
  if (network) return `Google Cloud KMS unreachable (${network[1]})`;
  // Before any request: the private key cannot sign the JWT (the client retries that too, then says DEADLINE_EXCEEDED).
  if (/private key|PEM|DECODER|asn1/i.test(e.message ?? ''))
    return "the service account's private_key cannot sign (is it the PEM of the account's key?)";
  if (typeof e.code === 'number' && CAUSES[e.code]) return CAUSES[e.code]!;
  if (e.code === 3)
    return 'Google Cloud KMS refused the request as invalid (INVALID_ARGUMENT: check the key names and that the key version signs this way)';
  if (typeof e.code === 'number' && NAMES[e.code]) return `Google Cloud KMS refused the request (${NAMES[e.code]})`;
  return 'Google Cloud KMS failed (no status code in its answer)';
}
