%% The consumer's tests: bufkit used as a dependency does real work (grow a buffer, lease from a
%% pool, inflate at an offset, extract an archive).
-module(consumer_tests).
-include_lib("eunit/include/eunit.hrl").

buffer_pool_and_inflate_test() ->
    {ok, B} = bufkit:buffer_new(#{growth => segmented}),
    [ok = bufkit:buffer_append(B, "twenty-five bytes apiece ") || _ <- lists:seq(1, 1000)],
    {ok, #{len := 25000}} = bufkit:buffer_stats(B),
    ok = bufkit:buffer_free(B),
    {ok, P} = bufkit:pool_new(),
    {ok, L} = bufkit:pool_acquire(P, 65536),
    ok = bufkit:pool_release(P, L),
    Stream = zlib:compress(<<"hello">>),
    ?assertEqual({ok, <<"hello">>, byte_size(Stream)}, bufkit:inflate_at(<<"PK!", Stream/binary>>, 3, 5)).

extract_test() ->
    Dir = string:trim(os:cmd("mktemp -d")),
    try
        Zip = filename:join(Dir, "app.zip"),
        {ok, _} = zip:create(Zip, [{"assets/app.js", <<"console.log('hi');\n">>}, {"readme.txt", <<"hi">>}]),
        {ok, #{files := 2}} = bufkit:extract(Zip, filename:join(Dir, "out"), #{}),
        ?assertEqual({ok, <<"hi">>}, file:read_file(filename:join([Dir, "out", "readme.txt"])))
    after
        os:cmd("rm -rf '" ++ Dir ++ "'")
    end.
