print("simulcast-bench")
