import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * The event outbox (contract 6.3). A message is one event, written in the transaction of the
 * write that caused it; a delivery is that message on its way to one destination (a basic
 * webhook URL, an advanced endpoint, later a mail recipient); every attempt is kept. The route
 * index covers only pending deliveries, so claiming work reads a short range whatever the
 * history holds. A claim is a lease (`lease_until`, `lease_token`): a worker that dies leaves
 * its claims to be taken again when they run out. Each delivery row is written three times
 * (added, claimed, settled), so it has few indexes, and the claim touches none of them
 * (on PostgreSQL a heap-only update, with room left on each page for it).
 */
export class Outbox1763840000000 implements MigrationInterface {
  name = 'Outbox1763840000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    // PostgreSQL keeps part of each delivery page free for heap-only updates.
    const fillfactor = d.postgres ? ' WITH (fillfactor = 70)' : '';
    await db.query(`CREATE TABLE outbox_message (
      id varchar(40) NOT NULL PRIMARY KEY,
      api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
      event_key text,
      event_type varchar(256) NOT NULL,
      payload text NOT NULL,
      created_at ${d.bigint} NOT NULL)`);
    await db.query('CREATE UNIQUE INDEX outbox_message_event_idx ON outbox_message (api_key_id, event_key)');
    // Settled messages are deleted oldest first once past their retention.
    await db.query('CREATE INDEX outbox_message_created_idx ON outbox_message (created_at)');
    await db.query(`CREATE TABLE outbox_delivery (
      id varchar(40) NOT NULL PRIMARY KEY,
      api_key_id varchar(24) NOT NULL,
      message_id varchar(40) NOT NULL REFERENCES outbox_message(id) ON DELETE CASCADE,
      channel varchar(24) NOT NULL,
      target varchar(256) NOT NULL,
      route varchar(320) NOT NULL,
      status varchar(12) NOT NULL,
      attempts integer NOT NULL,
      max_attempts integer NOT NULL,
      next_attempt_at ${d.bigint},
      lease_until ${d.bigint},
      lease_token varchar(40),
      last_status_code integer,
      last_error text,
      created_at ${d.bigint} NOT NULL,
      updated_at ${d.bigint} NOT NULL)${fillfactor}`);
    // Work is found and claimed per route (destination): which routes have work due, then each
    // route's oldest. A route whose receiver is slow, however long its queue, costs one seek.
    await db.query("CREATE INDEX outbox_delivery_route_idx ON outbox_delivery (route, next_attempt_at, id) WHERE status = 'pending'");
    await db.query('CREATE UNIQUE INDEX outbox_delivery_target_idx ON outbox_delivery (api_key_id, channel, target, message_id)');
    await db.query('CREATE INDEX outbox_delivery_list_idx ON outbox_delivery (api_key_id, channel, message_id, target)');
    // A message's deliveries: deleting a message (retention) cascades through it.
    await db.query('CREATE INDEX outbox_delivery_message_idx ON outbox_delivery (message_id)');
    await db.query(`CREATE TABLE delivery_attempt (
      delivery_id varchar(40) NOT NULL REFERENCES outbox_delivery(id) ON DELETE CASCADE,
      attempt integer NOT NULL,
      attempted_at ${d.bigint} NOT NULL,
      status_code integer,
      duration_ms integer NOT NULL,
      error text,
      next_attempt_at ${d.bigint},
      PRIMARY KEY (delivery_id, attempt))`);
    // Since when an advanced endpoint has failed without a success (5 days of it disable it).
    await db.query(`ALTER TABLE webhook_endpoint ADD COLUMN failing_since ${d.bigint}`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE webhook_endpoint DROP COLUMN failing_since');
    await db.query('DROP TABLE delivery_attempt');
    await db.query('DROP TABLE outbox_delivery');
    await db.query('DROP TABLE outbox_message');
  }
}
