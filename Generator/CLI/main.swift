print("bindery-gen")
