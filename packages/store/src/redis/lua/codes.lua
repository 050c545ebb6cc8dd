-- Fragment: the named refusals of every script, one list. A script that refuses
-- answers { ERR_<NAME>, details... } (a negative first element); the store turns
-- each code into its error in one place (replies.ts: REPLY_CODES, checkReply),
-- and a test holds this list and REPLY_CODES equal, name for name.
-- Locals, not a table: a table would be built again on every call of every
-- script (about half a microsecond each); a local constant costs nothing.
local ERR_NO_RUN = -1 -- no such run
local ERR_STALE_TOKEN = -2 -- {status, token}: not the live attempt's token, or the run is not running
local ERR_RUN_STATUS = -3 -- {status}: the run's status refuses the verb (discard, retry, replay)
local ERR_COMMITTED = -4 -- {acted, ids}: the hook committed a resume or take
local ERR_TOO_MANY_HOOKS = -5 -- {count}: more hooks on the topic than runs per event
local ERR_POLICY_MOVED = -6 -- {kept version}: the approval policy is at another version
local ERR_NOT_WITHDRAWABLE = -7 -- {acted}: only a tool start can be withdrawn
local ERR_STATE_VERSION = -8 -- {kept version}: a subject's state is at another version
local ERR_UNDECLARED_STATE = -9 -- {"scope/kind"}: a hook's binding names a state not declared
local ERR_ATTACH_HELD = -10 -- {holder hook, its kept attach}: another hook's binding overlaps the attach path
local ERR_NO_INTERACTION = -11 -- no such interaction
local ERR_DECLARATION_MOVED = -12 -- {kept version}: a state's declaration changed since it was read
local ERR_RESOLVED = -13 -- {status, by, via, at ms}: the interaction is already resolved
local ERR_TAKEN = -14 -- {by, at ms}: its kept outcome was already taken
local ERR_TAKE_OPEN = -15 -- a take of an interaction still open
local ERR_TAKE_STATUS = -16 -- {status}: a take of an interaction neither resumed nor approved
local ERR_TAKE_NOT_READY = -17 -- {run, run status}: its run has not finished
local ERR_TAKE_NOTHING_KEPT = -18 -- {run, run status}: its run ended without an outcome
local ERR_STATE_BOUND = -19 -- {bindings JSON}: a declaration hooks still bind cannot be removed
