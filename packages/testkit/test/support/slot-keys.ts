/** Hash slots of a Redis cluster. */
export const SLOT_COUNT = 16_384;

/** CRC16/XMODEM, the checksum Redis cluster maps keys to slots with. */
function crc16(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/** The slot of a key whose whole name is the hash tag `{tag}`. */
export function slotOfTag(tag: string): number {
  return crc16(tag) % SLOT_COUNT;
}

/** One key per slot: `keys[slot]` hashes to `slot`. Found by trying tags `0`, `1`, … */
export function oneKeyPerSlot(): string[] {
  const keys = new Array<string | undefined>(SLOT_COUNT);
  let found = 0;
  for (let i = 0; found < SLOT_COUNT; i++) {
    const slot = slotOfTag(String(i));
    if (keys[slot] === undefined) {
      keys[slot] = `{${i}}`;
      found++;
    }
  }
  return keys as string[];
}
