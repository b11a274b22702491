import type { ArgumentMetadata } from '@nestjs/common';
import { IsArray, IsOptional, IsString } from 'class-validator';
import { AppException } from '../common/app-exception.js';
import { AppValidationPipe } from './validation.pipe.js';

class NoteDto {
  @IsString()
  title!: string;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  tags?: string[];
}

const body: ArgumentMetadata = { type: 'body', metatype: NoteDto };
const query: ArgumentMetadata = { type: 'query', metatype: NoteDto };

/** The details of the 400 the pipe answers `value` with, or `null` when it accepts it. */
async function refusal(value: unknown, metadata = body): Promise<unknown[] | null> {
  try {
    await new AppValidationPipe().transform(value, metadata);
    return null;
  } catch (error) {
    if (!(error instanceof AppException) || error.code !== 'VALIDATION_FAILED') throw error;
    return error.details ?? [];
  }
}

describe('AppValidationPipe', () => {
  it('accepts a valid body, including text that merely looks hostile', async () => {
    expect(await refusal({ title: "' OR 1=1 --", tags: ['{"$gt": ""}', '\u202e'] })).toBeNull();
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__'])(
    "refuses an inherited name like %s as an unknown field (class-validator's whitelist would let it pass)",
    async (key) => {
      expect(await refusal({ title: 'x', [key]: 'x' })).toEqual([
        { field: key, message: `property ${key} should not exist` },
      ]);
      expect(await refusal({ title: 'x', [key]: 'x' }, query)).not.toBeNull();
    },
  );

  it('refuses a NUL character anywhere, naming the field', async () => {
    expect(await refusal({ title: 'a\u0000b' })).toEqual([{ field: 'title', message: expect.stringContaining('NUL') }]);
    expect(await refusal({ title: 'x', tags: ['ok', '\u0000'] })).toEqual([
      { field: 'tags.1', message: expect.any(String) },
    ]);
  });

  it('refuses lone surrogates and keeps proper pairs', async () => {
    expect(await refusal({ title: 'x\ud800y' })).not.toBeNull();
    expect(await refusal({ title: 'x\udc00' })).not.toBeNull();
    expect(await refusal({ title: 'emoji \ud83d\ude00' })).toBeNull();
  });

  it('refuses deep nesting without recursing into it', async () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(await refusal({ title: 'x', tags: deep })).toEqual([
      { field: 'tags.0.0.0.0.0.0.0', message: expect.stringContaining('nested too deeply') },
    ]);
  });
});
