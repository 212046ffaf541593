--[[
  Several mutex extends in one call (decision 0213): what extendLock-2 does for one key, for
  each of n keys in order, with the Redis clock read once. The extends are independent:
  each gets its own reply, as if sent one after another with nothing in between. A client's
  bulk renewal reaches the store as many extends in one turn. Standalone and sentinel only
  (the keys need not share a slot).

  KEYS[2i-1..2i]   for extend i = 1..n: lock key, delay key (as extendLock-2)
  ARGV[1]          maxLeaseMs (as extendLock-2's ARGV[3]; one for every extend)
  ARGV[2i..2i+1]   for extend i: lockId, leaseMs

  Returns { reply 1, …, reply n }, each exactly extendLock-2's reply for that extend.
]]
-- #include extend
-- #include extendEach
return extendEach(extendOne)
