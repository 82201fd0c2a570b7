// Why a call to AWS KMS failed, in words an operator acts on. Only the error's name and AWS's own short message are
// used: the SDK's error object also carries the request and the answer, which never reach a log or the API.

const CREDENTIALS_REFUSED = new Set([
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'IncompleteSignatureException',
  'MissingAuthenticationTokenException',
  'InvalidClientTokenId',
  'ExpiredTokenException',
  'AccessDeniedException',
]);
const THROTTLED = new Set(['ThrottlingException', 'LimitExceededException', 'TooManyRequestsException']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE']);

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number; attempts?: number };
}

/** AWS's message, one line, bounded (it names a key ARN at most; never a credential). */
const short = (message: string | undefined) => (message ?? '').replace(/\s+/g, ' ').slice(0, 160);

export function awsKmsCause(err: unknown): string {
  const e = (err ?? {}) as SdkError;
  const name = e.name ?? 'Error';
  const attempts = e.$metadata?.attempts;
  if (name === 'CredentialsProviderError') return 'no AWS credentials found (the SDK default chain: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, web identity or an instance role)';
  if (CREDENTIALS_REFUSED.has(name)) return `the credentials were refused (${name}: ${short(e.message)})`;
  if (name === 'NotFoundException') return 'the key was not found (check key_id and region)';
  if (name === 'DisabledException' || name === 'KMSInvalidStateException') return `the key cannot sign now (${name}: ${short(e.message)})`;
  if (name === 'InvalidKeyUsageException') return `the key cannot sign this way (${short(e.message)})`;
  if (THROTTLED.has(name)) return `throttled by AWS KMS (${name}${attempts ? `, ${attempts} attempts` : ''})`;
  const code = e.code ?? (err as { cause?: { code?: string } })?.cause?.code;
  if (code && NETWORK_CODES.has(code)) return `AWS KMS unreachable (${code})`;
  if (name === 'TimeoutError') return 'AWS KMS did not answer in time';
  const status = e.$metadata?.httpStatusCode;
  return `${name}${status ? ` (HTTP ${status})` : ''}: ${short(e.message)}`;
}
