-- bench/bench-events.sh: the same filter as --where 'len > 100 || cpu == 0'
function keep(e)
  return (e.len ~= nil and e.len > 100) or e.cpu == 0
end
