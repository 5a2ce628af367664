%% What the topic suites (bufkit_*_tests.erl) share: where the checkout's files are, the fixture
%% every language's tests read, and a directory of a test's own.
-module(bufkit_test_support).
-export([checkout_file/1, methods_zip/0, in_dir/1]).

%% A file of the bufkit checkout these tests sit in (bindings/erlang/test/): the header and the
%% fixtures the Rust, C and Java tests read too.
checkout_file(Path) ->
    Here = proplists:get_value(source, ?MODULE:module_info(compile)),
    Root = filename:dirname(filename:dirname(filename:dirname(filename:dirname(Here)))),
    filename:join(Root, Path).

methods_zip() -> checkout_file("crates/asset-extract/tests/data/methods.zip").

%% Runs Test with a new directory of its own under TMPDIR (or /tmp), removed however Test ends.
in_dir(Test) ->
    Dir = filename:join(os:getenv("TMPDIR", "/tmp"),
                        "bufkit-erl-" ++ os:getpid() ++ "-" ++ integer_to_list(erlang:unique_integer([positive]))),
    ok = file:make_dir(Dir),
    try
        Test(Dir)
    after
        file:del_dir_r(Dir)
    end.
