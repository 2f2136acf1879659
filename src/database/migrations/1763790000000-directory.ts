import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * Directory and grants (contract parts 4 and 5). Every table is keyed by the owning API key
 * first (contract 1.4). Folders keep a materialised `path` of encoded ids ("a/b/c/"), compared
 * byte-wise, so a subtree is one range scan and a move one UPDATE.
 */
export class Directory1763790000000 implements MigrationInterface {
  name = 'Directory1763790000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`CREATE TABLE organization (
      api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
      id varchar(256) NOT NULL,
      name text,
      disabled boolean NOT NULL,
      metadata text NOT NULL,
      created_at ${d.bigint} NOT NULL,
      last_updated ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, id))`);
    await db.query(`CREATE INDEX organization_page_idx ON organization (api_key_id, created_at, id)`);
    await db.query(`CREATE TABLE folder (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      id varchar(256) NOT NULL,
      name text,
      parent_id varchar(256),
      path ${d.bytewiseText} NOT NULL,
      depth integer NOT NULL,
      access_type varchar(24),
      created_at ${d.bigint} NOT NULL,
      last_updated ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, id),
      FOREIGN KEY (api_key_id, organization_id) REFERENCES organization(api_key_id, id) ON DELETE CASCADE)`);
    await db.query(`CREATE INDEX folder_parent_idx ON folder (api_key_id, organization_id, parent_id, created_at, id)`);
    await db.query(`CREATE INDEX folder_path_idx ON folder (api_key_id, organization_id, path)`);
    await db.query(`CREATE TABLE document (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      id varchar(256) NOT NULL,
      name text,
      folder_id varchar(256),
      access_type varchar(24),
      disabled boolean NOT NULL,
      metadata text NOT NULL,
      created_at ${d.bigint} NOT NULL,
      last_updated ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, id),
      FOREIGN KEY (api_key_id, organization_id) REFERENCES organization(api_key_id, id) ON DELETE CASCADE)`);
    await db.query(`CREATE INDEX document_page_idx ON document (api_key_id, organization_id, created_at, id)`);
    await db.query(`CREATE INDEX document_folder_idx ON document (api_key_id, organization_id, folder_id, created_at, id)`);
    await db.query(`CREATE TABLE directory_user (
      api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
      id varchar(256) NOT NULL,
      name text,
      email text,
      initial text,
      metadata text NOT NULL,
      created_at ${d.bigint} NOT NULL,
      last_updated ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, id))`);
    await db.query(`CREATE TABLE access_grant (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      resource_type varchar(16) NOT NULL,
      resource_id varchar(256) NOT NULL,
      user_id varchar(256) NOT NULL,
      temporary boolean NOT NULL,
      access_role varchar(16) NOT NULL,
      expires_at ${d.bigint},
      created_at ${d.bigint} NOT NULL,
      last_updated ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, resource_type, resource_id, user_id, temporary),
      FOREIGN KEY (api_key_id, organization_id) REFERENCES organization(api_key_id, id) ON DELETE CASCADE)`);
    await db.query(`CREATE INDEX access_grant_user_idx ON access_grant (api_key_id, organization_id, user_id)`);
    await db.query(`CREATE TABLE access_context (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      user_id varchar(256) NOT NULL,
      access_fields text NOT NULL,
      last_updated ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, user_id),
      FOREIGN KEY (api_key_id, organization_id) REFERENCES organization(api_key_id, id) ON DELETE CASCADE)`);
    await db.query(`CREATE TABLE user_group (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      id varchar(256) NOT NULL,
      name text,
      created_at ${d.bigint} NOT NULL,
      last_updated ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, id),
      FOREIGN KEY (api_key_id, organization_id) REFERENCES organization(api_key_id, id) ON DELETE CASCADE)`);
    await db.query(`CREATE TABLE user_group_member (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      group_id varchar(256) NOT NULL,
      user_id varchar(256) NOT NULL,
      created_at ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, group_id, user_id),
      FOREIGN KEY (api_key_id, organization_id, group_id) REFERENCES user_group(api_key_id, organization_id, id) ON DELETE CASCADE)`);
    await db.query(`CREATE INDEX user_group_member_user_idx ON user_group_member (api_key_id, organization_id, user_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['user_group_member', 'user_group', 'access_context', 'access_grant', 'directory_user', 'document', 'folder', 'organization']) {
      await db.query(`DROP TABLE ${table}`);
    }
  }
}
