/** `+447700900123` → `+44********23`: the first two and last two digits (and a leading +) stay. */
export function maskMobile(mobile: string): string {
  const plus = mobile.startsWith('+') ? '+' : '';
  const digits = mobile.slice(plus.length);
  if (digits.length <= 4) return plus + '*'.repeat(digits.length);
  return `${plus}${digits.slice(0, 2)}${'*'.repeat(digits.length - 4)}${digits.slice(-2)}`;
}
