%% The library as a whole: its version against the header, the documentation, and every option
%% of every function given each kind of wrong value.
-module(bufkit_app_tests).
-include_lib("eunit/include/eunit.hrl").
-import(bufkit_test_support, [checkout_file/1, methods_zip/0, in_dir/1]).

%% The value of one of the header's #define lines, as a binary.
header_define(Name) ->
    {ok, Header} = file:read_file(checkout_file("include/bufkit.h")),
    {match, [Value]} = re:run(Header, "#define " ++ Name ++ " (\\S+)", [{capture, all_but_first, binary}]),
    Value.

version_matches_the_library_test() ->
    ?assertEqual(string:trim(header_define("BK_VERSION"), both, "\""), bufkit:version()),
    ?assertEqual(binary_to_integer(header_define("BK_ABI_VERSION")), bufkit:abi_version()).

%% The application's documentation builds (rebar.config publishes it with edoc): a `<<...>>' left
%% unquoted in a @doc is an XML error that stops edoc.
docs_build_with_edoc_test() ->
    Src = filename:join([filename:dirname(filename:dirname(code:which(bufkit))), "src"]),
    Dir = filename:join(os:getenv("TMPDIR", "/tmp"), "bufkit-edoc-" ++ os:getpid()),
    try
        ?assertEqual(ok, edoc:files(filelib:wildcard(filename:join(Src, "*.erl")), [{dir, Dir}]))
    after
        file:del_dir_r(Dir)
    end.

%% Every option of every function that takes an options map, given each kind of wrong value:
%% always an error tuple, never an exception (a string where a list of patterns belongs included).
wrong_option_values_are_errors_never_exceptions_test() ->
    Wrong = [-1, 1.5, "assets/", <<"bin">>, not_an_option_value, [a], #{}, {t}, make_ref(), 1 bsl 70],
    Zip = methods_zip(),
    in_dir(fun(Dir) -> wrong_option_values(Wrong, Zip, Dir) end).

wrong_option_values(Wrong, Zip, Dir) ->
    {ok, Archive} = bufkit:archive_open(Zip),
    Calls =
        [{extract, K, fun(W) -> bufkit:extract(Zip, filename:join(Dir, "out"), #{K => W}) end}
         || K <- [mode, threads, only, strict, skip_symlinks, quota, max_ratio, durable, no_mtime,
                  incremental, fold_case, progress, progress_interval_ms]] ++
        [{buffer_new, K, fun(W) -> bufkit:buffer_new(#{K => W}) end}
         || K <- [growth, factor, step, chunk_size, max_capacity, initial_capacity]] ++
        [{pool_new, K, fun(W) -> bufkit:pool_new(#{K => W}) end}
         || K <- [min_class_size, max_class_size, max_retained_bytes, max_buffers_per_class,
                  thread_cache_buffers, zero_on_acquire, decay_after_ms]] ++
        [{archive_open, K, fun(W) -> bufkit:archive_open(Zip, #{K => W}) end} || K <- [holding, local_headers]] ++
        [{archive_verify, threads, fun(W) -> bufkit:archive_verify(Archive, #{threads => W}) end},
         {extract, archive_path, fun(W) -> bufkit:extract(W, filename:join(Dir, "out"), #{}) end},
         {archive_open, path, fun(W) -> bufkit:archive_open(W, #{}) end}],
    Raised = [{Function, Key, W, Class, Reason}
              || {Function, Key, Call} <- Calls, W <- Wrong,
                 {raised, Class, Reason} <- [try Call(W) of _ -> returned catch C:R -> {raised, C, R} end]],
    Accepted = [{Function, Key} || {Function, Key, Call} <- Calls, Key =/= archive_path, Key =/= path,
                                   try Call("assets/") of {ok, _} -> true; ok -> true; _ -> false catch _:_ -> false end],
    ok = bufkit:archive_close(Archive),
    ?assertEqual([], Raised),
    %% A lone string is not a valid value for any option either.
    ?assertEqual([], Accepted),
    ?assertEqual({error, {invalid_argument, <<>>}},
                 bufkit:extract(Zip, filename:join(Dir, "out2"), #{only => "assets/"})).
