import type { MigrationInterface, QueryRunner } from 'typeorm';

const ORGANIZATION_PERMISSIONS: [name: string, displayName: string, group: string][] = [
  ['organization.view', 'View Organization', 'Organization'],
  ['organization.edit', 'Edit Organization', 'Organization'],
  ['organization.delete', 'Delete Organization', 'Organization'],
  ['members.view', 'View Members', 'Members'],
  ['members.invite', 'Invite Members', 'Members'],
  ['members.edit', 'Edit Members', 'Members'],
  ['members.remove', 'Remove Members', 'Members'],
];

/**
 * Organizations: the organizations, the one template of organization roles and permissions
 * (apart from the instance's roles and permissions), memberships with their organization roles,
 * and invitations (stored as a hash). The template's system rows are seeded here: every
 * organization permission, `owner` holding all of them and `member` holding the two views.
 */
export class Organizations1771700000000 implements MigrationInterface {
  name = 'Organizations1771700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "organizations" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "slug" character varying(63) NOT NULL,
        "name" character varying(255) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_organizations" PRIMARY KEY ("id"),
        CONSTRAINT "UQ_organizations_slug" UNIQUE ("slug"),
        CONSTRAINT "CHK_organizations_slug" CHECK ("slug" ~ '^[a-z0-9-]{3,63}$'))`);
    await queryRunner.query(`
      CREATE TABLE "organization_permissions" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "name" character varying(100) NOT NULL,
        "display_name" character varying(255),
        "description" text,
        "group_name" character varying(100),
        "is_system" boolean NOT NULL DEFAULT false,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_organization_permissions" PRIMARY KEY ("id"),
        CONSTRAINT "UQ_organization_permissions_name" UNIQUE ("name"))`);
    await queryRunner.query(`
      CREATE TABLE "organization_roles" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "name" character varying(100) NOT NULL,
        "display_name" character varying(255),
        "description" text,
        "is_system" boolean NOT NULL DEFAULT false,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_organization_roles" PRIMARY KEY ("id"))`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_organization_roles_name" ON "organization_roles" (lower(btrim("name")))`,
    );
    await queryRunner.query(`
      CREATE TABLE "organization_role_permissions" (
        "role_id" uuid NOT NULL REFERENCES "organization_roles"("id") ON DELETE CASCADE,
        "permission_id" uuid NOT NULL REFERENCES "organization_permissions"("id") ON DELETE CASCADE,
        CONSTRAINT "PK_organization_role_permissions" PRIMARY KEY ("role_id", "permission_id"))`);
    await queryRunner.query(
      `CREATE INDEX "IDX_organization_role_permissions_permission" ON "organization_role_permissions" ("permission_id")`,
    );
    await queryRunner.query(`
      CREATE TABLE "organization_members" (
        "organization_id" uuid NOT NULL REFERENCES "organizations"("id") ON DELETE CASCADE,
        "user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_organization_members" PRIMARY KEY ("organization_id", "user_id"))`);
    await queryRunner.query(`CREATE INDEX "IDX_organization_members_user" ON "organization_members" ("user_id")`);
    await queryRunner.query(`
      CREATE TABLE "organization_member_roles" (
        "organization_id" uuid NOT NULL,
        "user_id" uuid NOT NULL,
        "role_id" uuid NOT NULL REFERENCES "organization_roles"("id") ON DELETE CASCADE,
        CONSTRAINT "PK_organization_member_roles" PRIMARY KEY ("organization_id", "user_id", "role_id"),
        CONSTRAINT "FK_organization_member_roles_member" FOREIGN KEY ("organization_id", "user_id")
          REFERENCES "organization_members"("organization_id", "user_id") ON DELETE CASCADE)`);
    await queryRunner.query(
      `CREATE INDEX "IDX_organization_member_roles_role" ON "organization_member_roles" ("role_id")`,
    );
    await queryRunner.query(`
      CREATE TABLE "organization_invitations" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "organization_id" uuid NOT NULL REFERENCES "organizations"("id") ON DELETE CASCADE,
        "email" character varying(255) NOT NULL,
        "token_hash" character varying(64) NOT NULL,
        "role_ids" uuid[] NOT NULL DEFAULT '{}',
        "invited_by" uuid REFERENCES "users"("id") ON DELETE SET NULL,
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "accepted_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_organization_invitations" PRIMARY KEY ("id"),
        CONSTRAINT "UQ_organization_invitations_token_hash" UNIQUE ("token_hash"))`);
    await queryRunner.query(
      `CREATE INDEX "IDX_organization_invitations_organization" ON "organization_invitations" ("organization_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_organization_invitations_email" ON "organization_invitations" ("email")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_organization_invitations_invited_by" ON "organization_invitations" ("invited_by")`,
    );

    for (const [name, displayName, group] of ORGANIZATION_PERMISSIONS) {
      const [resource, action] = name.split('.');
      await queryRunner.query(
        `INSERT INTO organization_permissions (name, display_name, description, group_name, is_system)
         VALUES ($1, $2, $3, $4, true) ON CONFLICT (name) DO NOTHING`,
        [name, displayName, `Allows to ${action} ${resource} in the organization.`, group],
      );
    }
    await queryRunner.query(
      `INSERT INTO organization_roles (name, display_name, description, is_system) VALUES
         ('owner', 'Owner', 'Every organization permission, including those added later.', true),
         ('member', 'Member', 'Sees the organization and its members.', true)`,
    );
    await queryRunner.query(
      `INSERT INTO organization_role_permissions (role_id, permission_id)
         SELECT r.id, p.id FROM organization_roles r CROSS JOIN organization_permissions p
          WHERE r.name = 'owner' OR (r.name = 'member' AND p.name IN ('organization.view', 'members.view'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'organization_invitations',
      'organization_member_roles',
      'organization_members',
      'organization_role_permissions',
      'organization_roles',
      'organization_permissions',
      'organizations',
    ])
      await queryRunner.query(`DROP TABLE "${table}"`);
  }
}
