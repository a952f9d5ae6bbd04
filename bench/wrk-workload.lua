-- The requests of one wrk run of the benchmarks, and its report. Arguments after wrk's `--`:
--   get <path> [<path> ...]                   the paths in turn, round-robin per thread
--   decommission <first asset> <stride>       DELETE /v1/assets/<id>, a fresh asset each request: thread t's
--                                             n-th is <first> + n * <stride> + t, so with <stride> the
--                                             threads sending (of every wrk run side by side), none repeats;
--                                             with a fourth argument `keyed`, each with an Idempotency-Key of its own
--   batch <first asset> <stride> <size>       POST /v1/assets/decommissions of <size> fresh assets: thread t's n-th
--                                             takes the <size> from <first> + (n * <stride> + t) * <size>
-- The Authorization header comes from wrk's -H. done() prints one line, `WRK_RESULT <json>`.

local threads = {}

function setup(thread)
  thread:set("thread_index", #threads)
  table.insert(threads, thread)
end

-- The same mapping as assetId() in bench/fleet-data.ts: the letters count the ten-thousands, base 26.
local function asset_id(index)
  local block = math.floor(index / 10000)
  local letters = string.char(65 + math.floor(block / 676) % 26, 65 + math.floor(block / 26) % 26, 65 + block % 26)
  return string.format("%s-%04d", letters, index % 10000)
end

function init(args)
  mode = args[1]
  sent = 0
  statuses = {}
  if mode == "decommission" or mode == "batch" then
    first_asset = tonumber(args[2])
    stride = tonumber(args[3])
    keyed = args[4] == "keyed"
    batch_size = tonumber(args[4])
    wrk.method = mode == "batch" and "POST" or "DELETE"
    wrk.body = '{"reason":"Benchmark","authorized_by":"Bench Officer"}'
    wrk.headers["Content-Type"] = "application/json"
  else
    prepared = {}
    for i = 2, #args do
      prepared[#prepared + 1] = wrk.format("GET", args[i])
    end
  end
end

function request()
  local n = sent
  sent = sent + 1
  if mode == "decommission" then
    -- Threads interleave, so no two requests name the same asset.
    local index = first_asset + n * stride + thread_index
    if keyed then
      local headers = {}
      for name, value in pairs(wrk.headers) do
        headers[name] = value
      end
      -- The asset's index is unique across runs, so the key is too.
      headers["Idempotency-Key"] = "bench-" .. index
      return wrk.format(nil, "/v1/assets/" .. asset_id(index), headers)
    end
    return wrk.format(nil, "/v1/assets/" .. asset_id(index))
  end
  if mode == "batch" then
    local first = first_asset + (n * stride + thread_index) * batch_size
    local ids = {}
    for k = 0, batch_size - 1 do
      ids[#ids + 1] = '"' .. asset_id(first + k) .. '"'
    end
    return wrk.format(nil, "/v1/assets/decommissions", nil, '{"asset_ids":[' .. table.concat(ids, ",") .. '],"reason":"Benchmark","authorized_by":"Bench Officer"}')
  end
  return prepared[n % #prepared + 1]
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local counts = {}
  local total_sent = 0
  local most_sent = 0
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      counts[status] = (counts[status] or 0) + count
    end
    total_sent = total_sent + thread:get("sent")
    most_sent = math.max(most_sent, thread:get("sent"))
  end
  local fields = {}
  for status, count in pairs(counts) do
    fields[#fields + 1] = string.format('"%d":%d', status, count)
  end
  local errors = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"sent":%d,"most_sent_by_a_thread":%d,"statuses":{%s},' ..
      '"socket_errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), total_sent, most_sent,
    table.concat(fields, ","), errors.connect, errors.read, errors.write, errors.timeout))
end
