-- Fragment: the named refusals of every script. A script that refuses answers
-- { ERR.<name>, details... } (a negative first element); the store turns each
-- code into its error in one place (replies.ts: REPLY_CODES, checkReply), and
-- a test holds this table and REPLY_CODES equal, name for name.
local ERR = {
  no_run = -1, -- no such run
  stale_token = -2, -- {status, token}: not the live attempt's token, or the run is not running
  run_status = -3, -- {status}: the run's status refuses the verb (discard, retry, replay)
  committed = -4, -- {acted, ids}: the hook committed a resume or take
  too_many_hooks = -5, -- {count}: more hooks on the topic than runs per event
  policy_moved = -6, -- {kept version}: the approval policy is at another version
  not_withdrawable = -7, -- {acted}: only a tool start can be withdrawn
  state_version = -8, -- {kept version}: a subject's state is at another version
  no_interaction = -11, -- no such interaction
  resolved = -13, -- {status, by, via, at ms}: the interaction is already resolved
  taken = -14, -- {by, at ms}: its kept outcome was already taken
  take_open = -15, -- a take of an interaction still open
  take_status = -16, -- {status}: a take of an interaction neither resumed nor approved
  take_not_ready = -17, -- {run, run status}: its run has not finished
  take_nothing_kept = -18, -- {run, run status}: its run ended without an outcome
}
