// The L1 data fee of an OP-stack transaction, as the chain itself prices it: `getL1Fee(bytes)` of the GasPriceOracle
// predeploy, given the unsigned serialized transaction (the oracle adds what the signature weighs). The chain's own
// answer follows its upgrades (Ecotone, Fjord…) where a formula of ours would not.
import { decodeFunctionResult, encodeFunctionData, parseAbi, type Hex, type PublicClient } from 'viem';
import { AppError } from '../../errors.ts';

const GAS_PRICE_ORACLE = '0x420000000000000000000000000000000000000F';
const ABI = parseAbi(['function getL1Fee(bytes _data) view returns (uint256)']);

export async function readL1Fee(
  client: PublicClient,
  network: string,
  unsigned: Hex,
  read: <T>(what: string, fn: () => Promise<T>) => Promise<T>,
): Promise<bigint> {
  const data = encodeFunctionData({ abi: ABI, functionName: 'getL1Fee', args: [unsigned] });
  const answer = await read('GasPriceOracle.getL1Fee (eth_call)', () => client.call({ to: GAS_PRICE_ORACLE, data }));
  if (!answer.data || answer.data === '0x') {
    throw new AppError('CHAIN_UNAVAILABLE', {
      reason: `network '${network}' is tagged optimism-based, but no GasPriceOracle answers at ${GAS_PRICE_ORACLE} (the L1 data fee cannot be read)`,
    });
  }
  return decodeFunctionResult({ abi: ABI, functionName: 'getL1Fee', data: answer.data });
}
