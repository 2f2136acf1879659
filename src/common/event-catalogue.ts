/** Event types of contract 6.2, named by `actionType`. Triggers are keyed by these. */
export const COMMENT_EVENTS = [
  'comment_annotation.add',
  'comment_annotation.delete',
  'comment_annotation.status_change',
  'comment_annotation.priority_change',
  'comment_annotation.assign',
  'comment_annotation.access_mode_change',
  'comment_annotation.custom_list_change',
  'comment_annotation.approve',
  'comment_annotation.accept',
  'comment_annotation.reject',
  'comment_annotation.subscribe',
  'comment_annotation.unsubscribe',
  'comment_annotation.suggestion_accept',
  'comment_annotation.suggestion_reject',
  'comment.add',
  'comment.update',
  'comment.delete',
  'comment.accept',
  'comment.reject',
  'comment.reaction_add',
  'comment.reaction_delete',
] as const;
export const HUDDLE_EVENTS = ['huddle.create', 'huddle.join'] as const;
export const CRDT_EVENTS = ['crdt.update_data'] as const;
export const RECORDER_EVENTS = ['recorder.done'] as const;
export const REACTION_EVENTS = ['reaction.add', 'reaction.delete'] as const;

export const EVENT_TYPES: readonly string[] = [...COMMENT_EVENTS, ...HUDDLE_EVENTS, ...CRDT_EVENTS, ...RECORDER_EVENTS, ...REACTION_EVENTS];

export type Triggers = Record<string, boolean>;

/** The catalogue's events by feature: upstream's notification config groups its triggers so. */
export const TRIGGER_GROUPS: Readonly<Record<string, readonly string[]>> = {
  comment: COMMENT_EVENTS,
  huddle: HUDDLE_EVENTS,
  crdt: CRDT_EVENTS,
  recorder: RECORDER_EVENTS,
  reaction: REACTION_EVENTS,
};

/** Triggers as upstream's notification config may send them: flat, by feature, or both. */
export type GroupedTriggers = Record<string, boolean | Triggers>;

/** The flat triggers the contract stores (part 3): each group's events lifted to the top level. */
export function flattenTriggers(triggers: GroupedTriggers): Triggers {
  const flat: Triggers = {};
  for (const [key, value] of Object.entries(triggers)) {
    if (typeof value === 'boolean') flat[key] = value;
    else Object.assign(flat, value);
  }
  return flat;
}

/**
 * First-enable trigger defaults (contract part 3): standard comment triggers on except the two
 * `suggestion_*` events, huddle triggers on; crdt, recorder and (unnamed by the contract,
 * decided here) reaction triggers off. Every catalogue event is listed so callers see them all.
 */
export function defaultTriggers(): Triggers {
  const triggers: Triggers = {};
  for (const event of EVENT_TYPES) triggers[event] = false;
  for (const event of COMMENT_EVENTS) triggers[event] = !event.includes('.suggestion_');
  for (const event of HUDDLE_EVENTS) triggers[event] = true;
  return triggers;
}
