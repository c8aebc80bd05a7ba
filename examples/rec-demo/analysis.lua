-- A script activity over the rec-demo program's events (docs/analysis.md):
-- a big packet (more than 1000 bytes) lives from its RX to its TX on the
-- same thread, which the definitions file cannot say (it needs the length).
local big = {}
function on_event(e)
  if e.name == "net:RX" and e.len > 1000 then
    activity.open("big_packet", e.tid)
    big[e.tid] = true
  elseif (e.name == "net:TX" or e.name == "net:DROP") and big[e.tid] then
    activity.close("big_packet", e.tid)
    big[e.tid] = nil
  end
end
-- a computed field for 'trawl events list'
fields = { kib = function(e) if e.len then return e.len // 1024 end end }
