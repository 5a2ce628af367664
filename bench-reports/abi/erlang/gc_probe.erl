%% Why a full garbage collection before timing iolist_to_binary/1 made it look slow: after the
%% collection the young heap holds the whole live iolist with almost no room left, so the next
%% allocation on the process heap (iolist_to_binary/1 makes one; a NIF append does not) starts a
%% minor collection that copies the whole list. Prints, twice: the heap right after a full
%% collection, what a minor collection then costs, and iolist_to_binary/1 after a full
%% collection, after a full and a minor one, and with none forced.
%% Run: erlc -o /tmp bench-reports/abi/erlang/seed_iolist.erl bench-reports/abi/erlang/gc_probe.erl &&
%%      erl -noshell -pa /tmp -eval 'gc_probe:run(), halt().'
-module(gc_probe).
-export([run/0]).

run() ->
    IoList = seed_iolist:iolist(binaries, seed_iolist:strings()),
    Flatten = fun() -> iolist_to_binary(IoList) end,
    [begin
         garbage_collect(),
         [{heap_size, Used}, {heap_block_size, Block}] =
             [lists:keyfind(K, 1, element(2, process_info(self(), garbage_collection_info)))
              || K <- [heap_size, heap_block_size]],
         {Minor, _} = timer:tc(fun() -> garbage_collect(self(), [{type, minor}]) end),
         io:format("after a full collection: ~b of ~b heap words used; a minor collection then: ~.1f ms~n",
                   [Used, Block, Minor / 1000]),
         [io:format("  iolist_to_binary/1 ~-32s ~6.1f ms~n", [Name, timed(Before, Flatten)])
          || {Name, Before} <- [{"after a full collection", fun() -> garbage_collect() end},
                                {"after a full and a minor one", fun() -> garbage_collect(),
                                                                           garbage_collect(self(), [{type, minor}]) end},
                                {"with none forced", fun() -> ok end}]]
     end || _ <- [1, 2]],
    ok.

timed(Before, F) ->
    Before(),
    {Us, _} = timer:tc(F),
    Us / 1000.
