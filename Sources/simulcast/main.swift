print("simulcast")
