-- Fragment: interrupt(c, now, max_attempts, retry_delay, event, reason, alert)
-- `alert` {base, at}: the id base and ISO time of the hooks_run_failed event kept when it fails (failed_event.lua).
-- The one interrupt policy, for a lapsed lease (sweep_lapsed) and a shutdown
-- hand-back (release). Same table as decideInterrupt in interrupt.ts:
--   acted ''                    -> retry_wait at now + retry_delay, or failed (unavailable) when attempts are spent
--   acted 'start', resumable    -> pending now (replay), or failed (unavailable) when attempts are spent
--   acted 'start', not resumable-> failed (outcome_unknown): held until an operator resolves it
--   acted cancel/resume/take    -> pending now (replay, whatever attempts are left): the next attempt ends
--                                  the run with what the commit did, acting on nothing again
-- `event` (released|lapsed) is also what ended the attempt (see end_attempt).
-- Returns {id, hook, outcome, kind, message, attempts}.
--!include transitions
--!include failed_event
local function interrupt(c, now, max_attempts, retry_delay, event, reason, alert)
  local f = redis.call('HMGET', c.run, 'hook', 'attempts', 'acted', 'acted_ids', 'resumable')
  local hook, attempts, acted, acted_ids, resumable = f[1], tonumber(f[2]), f[3], f[4], f[5]
  append_history(c.run, now, attempts, event, reason)
  local spent = attempts >= max_attempts
  local used = '(' .. attempts .. ' of ' .. max_attempts .. ')'
  local outcome, kind, message
  if acted == '' then
    if spent then
      outcome, kind, message = 'failed', 'unavailable', reason .. '; no attempts left ' .. used
    else
      outcome, kind, message = 'retry', 'unavailable', reason
    end
  elseif acted == 'start' then
    if resumable ~= '1' then
      -- Same words as unknownOutcomeMessage in interrupt.ts.
      outcome, kind = 'failed', 'outcome_unknown'
      message = 'outcome unknown: interrupted after its tool started (' .. reason .. '); the tool may have acted and does not declare crash-resume, '
        .. 'so it is not called again; held for an operator to check what the tool did and resolve the run'
    elseif spent then
      outcome, kind, message = 'failed', 'unavailable', reason .. '; no attempts left to replay its start ' .. used
    else
      outcome, kind, message = 'replay', 'unavailable', reason .. '; replaying its start'
    end
  else
    outcome, kind = 'replay', 'unavailable'
    message = reason .. '; it committed a ' .. acted .. ' on ' .. acted_ids .. ', which ends the run on the next attempt'
  end
  end_attempt(c, event)
  redis.call('HSET', c.run, 'error', cjson.encode({ kind = kind, message = message }))
  if outcome == 'failed' then
    finish(c, 'failed', now)
    append_history(c.run, now, attempts, 'failed', kind .. ': ' .. message)
    keep_failed_event(c, now, alert.base, alert.at)
  elseif outcome == 'retry' then
    make_due(c, 'retry_wait', now + retry_delay, now)
    append_history(c.run, now, attempts, 'retry_scheduled', kind .. ': ' .. message .. '; due in ' .. retry_delay .. ' ms')
  else
    make_due(c, 'pending', now, now)
    if acted == 'start' then
      append_history(c.run, now, attempts, 'replay', 'its start replays on the next attempt')
    else
      append_history(c.run, now, attempts, 'replay', 'its committed ' .. acted .. ' ends the run on the next attempt')
    end
  end
  return { c.id, hook, outcome, kind, message, attempts }
end
