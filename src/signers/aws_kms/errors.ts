// Why a call to AWS KMS failed, in words an operator acts on: from the error's code (its name) and the HTTP status
// only. AWS's message is never quoted: an endpoint may repeat the request in it (the session token, the signature),
// and the SDK's error object also carries the request and the answer, which never reach a log or the API.

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
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
]);

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number; attempts?: number };
}

/** An AWS error code is an identifier; anything else (an endpoint that answers text of its own) is not repeated. */
const CODE = /^[A-Za-z][A-Za-z0-9.]{0,63}$/;

export function awsKmsCause(err: unknown): string {
  const e = (err ?? {}) as SdkError;
  const name = e.name && CODE.test(e.name) ? e.name : 'an unrecognised error';
  const attempts = e.$metadata?.attempts;
  if (name === 'CredentialsProviderError')
    return 'no AWS credentials found (the SDK default chain: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, web identity or an instance role)';
  if (name === 'AccessDeniedException')
    return 'the credentials may not use this key (AccessDeniedException: check the key policy and the IAM policy allow kms:GetPublicKey and kms:Sign)';
  if (name === 'ExpiredTokenException')
    return 'the credentials have expired (ExpiredTokenException: renew AWS_SESSION_TOKEN, or the role session)';
  if (CREDENTIALS_REFUSED.has(name))
    return `the credentials were refused (${name}: check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, and the region)`;
  if (name === 'NotFoundException') return 'the key was not found (check key_id and region)';
  if (name === 'DisabledException')
    return 'the key cannot sign now (DisabledException: the key is disabled; enable it)';
  if (name === 'KMSInvalidStateException')
    return 'the key cannot sign now (KMSInvalidStateException: it is pending deletion, pending import or unavailable)';
  if (name === 'InvalidKeyUsageException')
    return 'the key cannot sign this way (InvalidKeyUsageException: it needs KeyUsage SIGN_VERIFY and the key spec this network signs with)';
  if (THROTTLED.has(name)) return `throttled by AWS KMS (${name}${attempts ? `, ${attempts} attempts` : ''})`;
  const code = e.code ?? (err as { cause?: { code?: string } })?.cause?.code;
  if (code && NETWORK_CODES.has(code)) return `AWS KMS unreachable (${code})`;
  if (name === 'TimeoutError') return 'AWS KMS did not answer in time';
  const status = e.$metadata?.httpStatusCode;
  return `AWS KMS refused the request (${name}${status ? `, HTTP ${status}` : ''})`;
}
