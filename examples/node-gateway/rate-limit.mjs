// A request rate per caller shared by every gateway process: a token bucket in Redis (a hash
// {tokens, at} per caller, kept a minute after its last use) holding `perMinute` tokens, refilled
// continuously at `perMinute` a minute; each request takes one. The script reads Redis's own clock,
// so gateways whose clocks differ share one bucket all the same.
import { createHash } from "node:crypto";

/** KEYS[1] the caller's bucket; ARGV[1] tokens a minute. Answers "0" (taken) or the ms until a token is back. */
const TAKE_TOKEN = `
local rate = tonumber(ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = math.min(rate, (tonumber(state[1]) or rate) + (now - (tonumber(state[2]) or now)) * rate / 60000)
if tokens < 1 then
  return tostring((1 - tokens) * 60000 / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - 1), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], 60000)
return '0'
`;

const TAKE_SHA1 = createHash("sha1").update(TAKE_TOKEN).digest("hex");

/**
 * Takes one of the caller's tokens from the bucket at `key` (`perMinute` a minute): 0, or how long
 * (ms) until one is back.
 */
export async function takeToken(redis, key, perMinute) {
  const args = ["1", key, String(perMinute)];
  let reply;
  try {
    reply = await redis.sendCommand(["EVALSHA", TAKE_SHA1, ...args]);
  } catch (error) {
    if (!String(error?.message).startsWith("NOSCRIPT")) throw error;
    reply = await redis.sendCommand(["EVAL", TAKE_TOKEN, ...args]);
  }
  return Number(String(reply));
}
