import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { CurrentUser, Permissions, RequirePermissions, type AuthUser } from '@auth-rbac/nest-guard';
import { DocumentRoute, empty, list, type Schema } from '../common/route-doc.js';
import { CreateIdentityProviderDto, UpdateIdentityProviderDto } from './identity-providers.dto.js';
import { IdentityProvidersService } from './identity-providers.service.js';

const NOT_FOUND = 'NOT_FOUND: no identity provider has this slug.';
const ISSUER_REFUSED =
  'VALIDATION_FAILED: a field, or an issuer that is not https (http only on a loopback host) or whose discovery document could not be read.';

/** An upstream identity provider as the admin API answers it: never its client secret. */
const PROVIDER: Schema = {
  type: 'object',
  required: [
    'id',
    'slug',
    'name',
    'type',
    'issuer',
    'client_id',
    'scopes',
    'trust_email',
    'allow_sign_up',
    'enabled',
    'redirect_uri',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'string', format: 'uuid' },
    slug: { type: 'string' },
    name: { type: 'string', description: 'Shown on the button "Continue with <name>".' },
    type: { type: 'string', enum: ['oidc', 'github'] },
    issuer: {
      type: 'string',
      nullable: true,
      description: 'oidc: the issuer; github: a GitHub Enterprise Server, or null for github.com.',
    },
    client_id: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string' } },
    trust_email: {
      type: 'boolean',
      description: "The upstream's email_verified is believed (automatic linking, verified new accounts).",
    },
    allow_sign_up: { type: 'boolean' },
    enabled: { type: 'boolean' },
    redirect_uri: { type: 'string', description: 'The callback URL to register at the upstream.' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

/**
 * Upstream identity providers (contract, "Upstream identity providers and safe account linking"):
 * generic OpenID Connect by issuer discovery, and GitHub. `settings.view` reads them,
 * `settings.edit` changes them; the client secret is sealed at rest and never returned.
 */
@Controller('admin/identity-providers')
export class IdentityProvidersController {
  constructor(private readonly providers: IdentityProvidersService) {}

  @Get()
  @RequirePermissions(Permissions.SettingsView)
  @DocumentRoute({ summary: 'The upstream identity providers, by slug', data: list(PROVIDER) })
  list() {
    return this.providers.list();
  }

  @Post()
  @RequirePermissions(Permissions.SettingsEdit)
  @DocumentRoute({
    summary: 'Add an upstream identity provider (oidc: its discovery is read first)',
    data: PROVIDER,
    statuses: { 400: ISSUER_REFUSED, 409: 'CONFLICT: an identity provider has this slug.' },
  })
  create(@CurrentUser() actor: AuthUser, @Body() dto: CreateIdentityProviderDto) {
    return this.providers.create(actor, dto);
  }

  @Get(':slug')
  @RequirePermissions(Permissions.SettingsView)
  @DocumentRoute({ summary: 'One upstream identity provider', data: PROVIDER, statuses: { 404: NOT_FOUND } })
  get(@Param('slug') slug: string) {
    return this.providers.get(slug);
  }

  @Put(':slug')
  @RequirePermissions(Permissions.SettingsEdit)
  @DocumentRoute({
    summary: 'Change an upstream identity provider (the fields given replace its own; slug and type stay)',
    data: PROVIDER,
    statuses: { 400: ISSUER_REFUSED, 404: NOT_FOUND },
  })
  update(@CurrentUser() actor: AuthUser, @Param('slug') slug: string, @Body() dto: UpdateIdentityProviderDto) {
    return this.providers.update(actor, slug, dto);
  }

  @Delete(':slug')
  @RequirePermissions(Permissions.SettingsEdit)
  @DocumentRoute({
    summary: 'Delete an upstream identity provider and the identities linked from it',
    data: empty,
    statuses: { 404: NOT_FOUND },
  })
  delete(@CurrentUser() actor: AuthUser, @Param('slug') slug: string) {
    return this.providers.delete(actor, slug);
  }
}
