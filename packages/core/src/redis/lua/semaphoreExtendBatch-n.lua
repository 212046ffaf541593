--[[
  Several permit extends in one call (decision 0213): what semaphoreExtend-2 does for one
  grant, for each of n grants in order, with the Redis clock read once. The extends are
  independent: each gets its own reply, as if sent one after another with nothing in
  between. A client's bulk renewal reaches the store as many extends in one turn.
  Standalone and sentinel only (the keys need not share a slot).

  KEYS[2i-1..2i]   for extend i = 1..n: grants key, facts key (as semaphoreExtend-2)
  ARGV[1]          maxLeaseMs (as semaphoreExtend-2's ARGV[3]; one for every extend)
  ARGV[2i..2i+1]   for extend i: lockId, leaseMs

  Returns { reply 1, …, reply n }, each exactly semaphoreExtend-2's reply for that extend.
]]
-- #include permitExtend
-- #include extendEach
return extendEach(permitExtendOne)
