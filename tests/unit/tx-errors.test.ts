import { describe, expect, test } from 'bun:test';
import { describeTransactionError, formatTransactionError } from '../../src/chain/tx/errors';

const RAYDIUM_V4 = '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8';
const JUPITER_V6 = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
const UNKNOWN = 'Zo1ggzTUKMY5bYnDvT5mtVeZxzf2FaLTbKkmvGUhUQk';
const UNKNOWN_INNER = 'ZDx8a8jBqGmJyxi1whFxxCo5vG6Q9t4hTzW2GSixMKK';

describe('describeTransactionError', () => {
  test('success is null', () => {
    expect(describeTransactionError(null)).toBeNull();
    expect(describeTransactionError(undefined)).toBeNull();
  });

  test('custom program error: hex and decimal, named when the raising program has a known code', () => {
    const info = describeTransactionError(
      { InstructionError: [2, { Custom: 30 }] },
      { programIdOf: (i) => (i === 2 ? RAYDIUM_V4 : undefined) },
    );
    expect(info).toMatchObject({ instructionIndex: 2, programId: RAYDIUM_V4, customCode: 30, name: 'ExceededSlippage' });
    expect(info!.message).toBe('custom program error 0x1e (30, ExceededSlippage)');
    expect(formatTransactionError(info!)).toBe('instruction 2 (Raydium AMM v4) failed: custom program error 0x1e (30, ExceededSlippage)');
  });

  test('Jupiter 6001 is SlippageToleranceExceeded', () => {
    const info = describeTransactionError(
      { InstructionError: [3, { Custom: 6001 }] },
      { programIdOf: () => JUPITER_V6, logs: [`Program ${JUPITER_V6} failed: custom program error: 0x1771`] },
    );
    expect(info!.message).toBe('custom program error 0x1771 (6001, SlippageToleranceExceeded)');
  });

  test('a code is named only for the program that raised it', () => {
    // 30 is Raydium's ExceededSlippage, but here an unknown program raised it
    const info = describeTransactionError({ InstructionError: [0, { Custom: 30 }] }, { programIdOf: () => UNKNOWN });
    expect(info!.name).toBeNull();
    expect(info!.message).toBe('custom program error 0x1e (30)');
  });

  test('the raising program comes from the runtime "failed" log line, not the top-level instruction', () => {
    const logs = [
      `Program ${UNKNOWN} invoke [1]`,
      `Program ${UNKNOWN_INNER} invoke [2]`,
      `Program ${UNKNOWN_INNER} failed: custom program error: 0x29`,
      `Program ${UNKNOWN} failed: custom program error: 0x29`,
    ];
    const info = describeTransactionError({ InstructionError: [0, { Custom: 41 }] }, { programIdOf: () => UNKNOWN, logs });
    expect(info).toMatchObject({ programId: UNKNOWN, failedProgramId: UNKNOWN_INNER, customCode: 41 });
    expect(formatTransactionError(info!)).toBe(
      'instruction 0 (Zo1ggz…hUQk) failed: custom program error 0x29 (41), raised by ZDx8a8…xMKK',
    );
  });

  test('a log line a program printed cannot pose as the failing program', () => {
    const logs = [`Program log: Program ${JUPITER_V6} failed: custom program error: 0x1771`];
    const info = describeTransactionError({ InstructionError: [0, { Custom: 6001 }] }, { programIdOf: () => UNKNOWN, logs });
    expect(info!.failedProgramId).toBeNull();
    expect(info!.name).toBeNull();
  });

  test('string instruction errors are humanized and keep the variant', () => {
    const info = describeTransactionError({ InstructionError: [0, 'IncorrectProgramId'] });
    expect(info!.message).toBe('incorrect program id (IncorrectProgramId)');
    expect(info!.name).toBe('IncorrectProgramId');
  });

  test('object instruction errors keep their payload', () => {
    const info = describeTransactionError({ InstructionError: [1, { BorshIoError: 'Unknown' }] });
    expect(info!.message).toBe('borsh io error (BorshIoError: Unknown)');
  });

  test('transaction-level errors, string and object forms', () => {
    const fee = describeTransactionError('InsufficientFundsForFee')!;
    expect(fee.instructionIndex).toBeNull();
    expect(fee.message).toBe('insufficient funds for fee (InsufficientFundsForFee)');
    expect(formatTransactionError(fee)).toBe('transaction rejected: insufficient funds for fee (InsufficientFundsForFee)');

    const rent = describeTransactionError({ InsufficientFundsForRent: { account_index: 3 } })!;
    expect(rent.message).toBe('insufficient funds for rent (InsufficientFundsForRent, account index 3)');

    const dup = describeTransactionError({ DuplicateInstruction: 2 })!;
    expect(dup.message).toBe('duplicate instruction (DuplicateInstruction: 2)');
  });

  test('bigint payloads from parseJson and odd shapes do not throw', () => {
    expect(describeTransactionError({ InstructionError: [0n, { Custom: 6001n }] }, { programIdOf: () => JUPITER_V6 })!.message).toBe(
      'custom program error 0x1771 (6001, SlippageToleranceExceeded)',
    );
    expect(describeTransactionError({ a: 1, b: 2 })!.message).toBe('{"a":1,"b":2}');
  });

  test('unknown payload text is sanitized and bounded', () => {
    const info = describeTransactionError({ Weird: 'ignore previous instructions\n<script>'.repeat(20) })!;
    expect(info.message).not.toContain('\n');
    expect(info.message).not.toContain('<');
    expect(info.message.length).toBeLessThan(220);
  });
});
