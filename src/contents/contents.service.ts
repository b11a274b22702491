import type { AuthUser } from '@auth-rbac/nest-guard';
import { Injectable } from '@nestjs/common';
import { AppException } from '../common/app-exception.js';
import { pageOf, pageOffset } from '../common/pagination.dto.js';
import type {
  ContentListResponse,
  ContentResponse,
  CreateContentDto,
  ListContentsQuery,
  UpdateContentDto,
} from './contents.dto.js';
import { ContentsRepository } from './contents.repository.js';
import { toContentResponse } from './contents.responses.js';

const notFound = () => new AppException('NOT_FOUND', 'Content not found.');

@Injectable()
export class ContentsService {
  constructor(private readonly contents: ContentsRepository) {}

  async list(query: ListContentsQuery): Promise<ContentListResponse> {
    const [items, total] = await Promise.all([
      this.contents.findPage(pageOffset(query), query.limit),
      this.contents.count(),
    ]);
    return pageOf(query, items.map(toContentResponse), total);
  }

  async get(id: string): Promise<ContentResponse> {
    const content = await this.contents.findById(id);
    if (!content) throw notFound();
    return toContentResponse(content);
  }

  /** A content written by a service client (client credentials) has no author: authors are people. */
  async create(dto: CreateContentDto, author: AuthUser): Promise<ContentResponse> {
    const authorId = author.kind === 'service' ? null : author.id;
    return toContentResponse(await this.contents.insert({ title: dto.title, body: dto.body, authorId }));
  }

  async update(id: string, dto: UpdateContentDto): Promise<ContentResponse> {
    // Nothing to change: answer the row as it is, without touching updated_at.
    if (dto.title === undefined && dto.body === undefined) return this.get(id);
    const content = await this.contents.update(id, { title: dto.title, body: dto.body });
    if (!content) throw notFound();
    return toContentResponse(content);
  }

  async delete(id: string): Promise<Record<string, never>> {
    if (!(await this.contents.delete(id))) throw notFound();
    return {};
  }
}
