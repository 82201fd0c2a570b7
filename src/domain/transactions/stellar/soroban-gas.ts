// Soroban gas abstraction (the reference's FeeForwarder flow): `signed_auth_entry` in a send, and a `C…` fee token or a
// contract call in a sponsored quote or build. Checked with the reference's rules, then refused with the reason: it
// needs a FeeForwarder contract and Soroswap prices, which only a Soroban VM can run, and none runs here to test it.
import { xdr } from '@stellar/stellar-base';
import { AppError, ValidationError } from '../../../errors.ts';

const SOROBAN_GAS_REFUSAL =
  'Soroban gas abstraction (FeeForwarder contract, Soroswap prices) is not offered by Relaybox: it cannot be tested without a Soroban VM. Pay the fee in a classic asset (CODE:ISSUER) through sponsored/build and a fee_bump send';

export function refuseSorobanGas(detail: string): never {
  throw new AppError('NOT_SUPPORTED', { reason: `${detail}: ${SOROBAN_GAS_REFUSAL}` });
}

/** A send's `signed_auth_entry`: the reference's request rules and a decodable entry, then the refusal. */
export function checkSignedAuthEntry(body: {
  signed_auth_entry?: string | null;
  transaction_xdr?: string | null;
  fee_bump?: boolean | null;
}): void {
  if (body.signed_auth_entry == null) return;
  if (body.transaction_xdr == null)
    throw new ValidationError('signed_auth_entry requires transaction_xdr to be provided');
  if (body.fee_bump === true) throw new ValidationError('Cannot use both signed_auth_entry and fee_bump');
  try {
    xdr.SorobanAuthorizationEntry.fromXDR(body.signed_auth_entry, 'base64');
  } catch {
    throw new ValidationError("'signed_auth_entry' is not a SorobanAuthorizationEntry in base64 XDR");
  }
  refuseSorobanGas("'signed_auth_entry'");
}
