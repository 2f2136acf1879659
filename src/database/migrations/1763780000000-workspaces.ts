import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

export class Workspaces1763780000000 implements MigrationInterface {
  name = 'Workspaces1763780000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`CREATE TABLE account (
      id varchar(40) PRIMARY KEY NOT NULL,
      email varchar(320) NOT NULL UNIQUE,
      created_at ${d.bigint} NOT NULL)`);
    await db.query(`CREATE TABLE workspace (
      id varchar(20) PRIMARY KEY NOT NULL,
      name varchar(200) NOT NULL,
      account_id varchar(40) NOT NULL REFERENCES account(id),
      owner_name varchar(200) NOT NULL,
      owner_avatar varchar(2000) NOT NULL,
      auth_token_hash varchar(64) NOT NULL,
      auth_token_enc text NOT NULL,
      plan varchar(10) NOT NULL,
      self_serve_production_keys boolean NOT NULL,
      created_at ${d.bigint} NOT NULL,
      last_updated ${d.bigint} NOT NULL)`);
    await db.query(`CREATE INDEX workspace_account_idx ON workspace (account_id)`);
    await db.query(`CREATE TABLE api_key (
      id varchar(24) PRIMARY KEY NOT NULL,
      workspace_id varchar(20) NOT NULL REFERENCES workspace(id) ON DELETE CASCADE,
      name varchar(200) NOT NULL,
      type varchar(20) NOT NULL,
      owner_email varchar(320) NOT NULL,
      persistence_db_region varchar(40),
      realtime_db_region varchar(40),
      email_config text NOT NULL,
      webhook_config text NOT NULL,
      notification_config text NOT NULL,
      advanced_webhook_config text,
      settings text NOT NULL,
      created_at ${d.bigint} NOT NULL,
      last_updated ${d.bigint} NOT NULL)`);
    await db.query(`CREATE INDEX api_key_workspace_idx ON api_key (workspace_id, created_at, id)`);
    await db.query(`CREATE TABLE api_key_auth_token (
      id varchar(40) PRIMARY KEY NOT NULL,
      api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
      name varchar(200) NOT NULL,
      token_hash varchar(64) NOT NULL UNIQUE,
      token_enc text NOT NULL,
      domains text NOT NULL,
      created_at ${d.bigint} NOT NULL)`);
    await db.query(`CREATE INDEX api_key_auth_token_key_idx ON api_key_auth_token (api_key_id)`);
    await db.query(`CREATE TABLE allowed_domain (
      api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
      domain varchar(260) NOT NULL,
      created_at ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, domain))`);
    await db.query(`CREATE TABLE login_token (
      token_hash varchar(64) PRIMARY KEY NOT NULL,
      email varchar(320) NOT NULL,
      expires_at ${d.bigint} NOT NULL,
      used_at ${d.bigint},
      created_at ${d.bigint} NOT NULL)`);
    await db.query(`CREATE TABLE outgoing_mail (
      id varchar(40) PRIMARY KEY NOT NULL,
      recipient varchar(320) NOT NULL,
      subject varchar(500) NOT NULL,
      content_enc text NOT NULL,
      transport varchar(20) NOT NULL,
      status varchar(20) NOT NULL,
      error text,
      created_at ${d.bigint} NOT NULL)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['outgoing_mail', 'login_token', 'allowed_domain', 'api_key_auth_token', 'api_key', 'workspace', 'account']) {
      await db.query(`DROP TABLE ${table}`);
    }
  }
}
