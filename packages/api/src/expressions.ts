/**
 * The `x-tai42-expression` annotation of every jq field: the document the
 * expression reads (`input`), what its result is consumed as (`result`) and
 * the variables it may use (`variables`). An editor offers a jq editor on
 * exactly the fields that carry it. A stored template's kwargs bind as
 * `$name` besides these.
 */
export interface ExpressionAnnotation {
  input: string;
  result: string;
  variables: Record<string, string>;
}

const PARKED = {
  $parked:
    "the open interactions on the hook's subject (same scope, kind and key), oldest first, each {id, kind, run, hook, tool, status, created_at, expires_at, ...}; [] when the hook has no subject",
  $state: "the subject's state document (a JSON object, read once per attempt), or null when the hook has no subject or the subject no state yet",
};
/** subject.key_expr decides the subject, so it sees neither. */
const KEY_VARS = { $parked: 'always [] here', $state: 'always null here' };
const PAYLOAD = 'payload: the event as kept (a JSON object body with query parameters merged in, or {body}, {raw_body}, {raw_body_base64}, form fields)';

/** The annotation per hook jq field (the keys are the fields' paths in the hook record). */
export const EXPRESSIONS: Record<string, ExpressionAnnotation> = {
  condition: { input: PAYLOAD, result: 'boolean: the run goes on when the first output is neither false nor null; no output skips it', variables: PARKED },
  start_expr: { input: PAYLOAD, result: "object: the tool's arguments, merged under the static tool_kwargs (tool_kwargs win a clash)", variables: PARKED },
  cancel_expr: { input: PAYLOAD, result: 'an interaction id or a list of ids: those open interactions are cancelled', variables: PARKED },
  resume_expr: {
    input: PAYLOAD,
    result:
      "{id, payload}, an id, or a list of those: those interactions are resumed (an approval with payload.verdict approve|deny); {take: id} takes a resumed run's kept outcome",
    variables: PARKED,
  },
  extras_expr: { input: PAYLOAD, result: "object: extras handed to the interactions this run acts on, or to this run's own tool", variables: PARKED },
  'subject.key_expr': {
    input: PAYLOAD,
    result: "non-empty string: the subject key ($parked and the subject's state are keyed by scope, kind and this key)",
    variables: KEY_VARS,
  },
};

/** The annotation of an approval rule's `when`. */
export const POLICY_WHEN: ExpressionAnnotation = {
  input: 'call: {tool, args, hook, topic, subject, agent} (subject {scope, kind, key} or null; agent: the calling agent, null for a hook run)',
  result: 'boolean: the rule matches when the first output is neither false nor null; an error denies the call',
  variables: {},
};
