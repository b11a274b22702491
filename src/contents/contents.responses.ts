import type { ContentResponse } from './contents.dto.js';
import type { ContentRow } from './contents.repository.js';

/** The API's spelling of a content (snake_case fields), from the table's row. */
export function toContentResponse(content: ContentRow): ContentResponse {
  return {
    id: content.id,
    title: content.title,
    body: content.body,
    author_id: content.authorId,
    created_at: content.createdAt,
    updated_at: content.updatedAt,
  };
}
