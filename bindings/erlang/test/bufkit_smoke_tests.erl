%% Each part of bufkit once, through the NIF: what a user of the packed application can run with
%% `rebar3 eunit`. The full behavioural suite is the topic suites beside it (bufkit_*_tests.erl);
%% run-tests.sh runs them all in a checkout.
-module(bufkit_smoke_tests).
-include_lib("eunit/include/eunit.hrl").

version_matches_the_application_test() ->
    ok = application:load(bufkit),
    {ok, Vsn} = application:get_key(bufkit, vsn),
    ?assertEqual(list_to_binary(Vsn), bufkit:version()).

buffer_test() ->
    {ok, B} = bufkit:buffer_new(#{growth => segmented}),
    ok = bufkit:buffer_append(B, [<<"hello ">>, "world"]),
    ?assertEqual({ok, <<"hello world">>}, bufkit:buffer_to_binary(B)),
    ok = bufkit:buffer_free(B).

pool_test() ->
    {ok, P} = bufkit:pool_new(),
    {ok, L} = bufkit:pool_acquire(P, 65536),
    {ok, Size} = bufkit:lease_size(L),
    ?assert(Size >= 65536),
    ok = bufkit:pool_release(P, L).

inflate_at_test() ->
    Stream = zlib:compress(<<"hello">>),
    ?assertEqual({ok, <<"hello">>, byte_size(Stream)}, bufkit:inflate_at(<<"PK!", Stream/binary, "next">>, 3, 5)).

extract_test() ->
    Dir = string:trim(os:cmd("mktemp -d")),
    try
        Zip = filename:join(Dir, "app.zip"),
        {ok, _} = zip:create(Zip, [{"assets/app.js", <<"var x = 1;\n">>}, {"readme.txt", <<"hi">>}]),
        {ok, #{files := 2}} = bufkit:extract(Zip, filename:join(Dir, "out"), #{}),
        ?assertEqual({ok, <<"hi">>}, file:read_file(filename:join([Dir, "out", "readme.txt"])))
    after
        os:cmd("rm -rf '" ++ Dir ++ "'")
    end.
