import { ValidateIf } from 'class-validator';

/**
 * Validates the field unless it is absent. Unlike `IsOptional`, which also skips `null`, a `null`
 * still has to pass the field's type rules: an optional field means "may be left out", and a
 * `null` that slipped through would reach the database as a NOT NULL violation or clear a value
 * the client never meant to clear.
 */
export const UnlessAbsent = () => ValidateIf((_dto: object, value: unknown) => value !== undefined);
